;; Puts a prefix before every line, for grep's `path:N: text` output, 16 bytes per step with SIMD.
;; `prefix(src, len, pre, preLen, dst, max)`: for each line of memory[src, src + len) (it ends at a line
;; feed, or at src + len), writes memory[pre, pre + preLen), the line without a CR just before its end, and
;; a line feed, from `dst` on; returns where the output ends, or -1 as soon as a line (its CR dropped) is
;; longer than `max` bytes. The scan reads 16 bytes at a time, so the 15 bytes after src + len must be
;; readable (their values do not matter). The memory is the caller's.
;; Assembled by src/tools/files/prefix-lines.test.ts, which checks the bytes in prefix-lines.ts are this file's.
(module
  (import "env" "memory" (memory 1))
  (func (export "prefix")
    (param $src i32) (param $len i32) (param $pre i32) (param $preLen i32) (param $dst i32) (param $max i32)
    (result i32)
    (local $end i32)
    (local $at i32)
    (local $mask i32)
    (local $lf i32)
    (local $n i32)
    (local.set $end (i32.add (local.get $src) (local.get $len)))
    (block $done
      (loop $line
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        ;; $lf: the next line feed at or after $src, or $end.
        (local.set $at (local.get $src))
        (block $found
          (loop $scan
            (if (i32.ge_u (local.get $at) (local.get $end))
              (then
                (local.set $lf (local.get $end))
                (br $found)))
            (local.set $mask
              (i8x16.bitmask (i8x16.eq (v128.load (local.get $at)) (i8x16.splat (i32.const 10)))))
            (if (local.get $mask)
              (then
                (local.set $lf (i32.add (local.get $at) (i32.ctz (local.get $mask))))
                (if (i32.gt_u (local.get $lf) (local.get $end))
                  (then (local.set $lf (local.get $end))))
                (br $found)))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (br $scan)))
        (memory.copy (local.get $dst) (local.get $pre) (local.get $preLen))
        (local.set $dst (i32.add (local.get $dst) (local.get $preLen)))
        (local.set $n (i32.sub (local.get $lf) (local.get $src)))
        (if (i32.and
              (i32.ne (local.get $n) (i32.const 0))
              (i32.eq (i32.load8_u (i32.sub (local.get $lf) (i32.const 1))) (i32.const 13)))
          (then (local.set $n (i32.sub (local.get $n) (i32.const 1)))))
        (if (i32.gt_u (local.get $n) (local.get $max))
          (then (return (i32.const -1))))
        (memory.copy (local.get $dst) (local.get $src) (local.get $n))
        (local.set $dst (i32.add (local.get $dst) (local.get $n)))
        (i32.store8 (local.get $dst) (i32.const 10))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (local.set $src (i32.add (local.get $lf) (i32.const 1)))
        (br $line)))
    (local.get $dst)))
