;; Line feed (0x0A byte) searches, 16 bytes per step with SIMD: read_file's line scan counts them, grep's
;; parse of ripgrep's output counts them and finds the empty line that ends a file's lines.
;; `count(ptr, len)`: the line feeds in memory[ptr, ptr + len); `len` is a multiple of 16 (the caller
;; counts the last few bytes).
;; `pair(ptr, len)`: the offset from `ptr` of the first line feed in memory[ptr, ptr + len) that follows
;; another one there, or -1; it reads up to 15 bytes past the end (their values do not matter).
;; The memory is one 1 MiB page group: the scan's chunk is read straight into it.
;; Assembled by src/tools/files/newlines.test.ts, which checks the bytes in newlines.ts are this file's.
(module
  (memory (export "memory") 16 16)
  (func (export "count") (param $ptr i32) (param $len i32) (result i32)
    (local $end i32)
    (local $count i32)
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
        (local.set $count
          (i32.add
            (local.get $count)
            (i32.popcnt
              (i8x16.bitmask
                (i8x16.eq (v128.load (local.get $ptr)) (i8x16.splat (i32.const 10)))))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 16)))
        (br $next)))
    (local.get $count))
  (func (export "pair") (param $ptr i32) (param $len i32) (result i32)
    (local $at i32)
    (local $end i32)
    (local $mask i32)
    (local $pairs i32)
    (local $carry i32)
    (local.set $at (local.get $ptr))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (block $none
      (loop $next
        (br_if $none (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $mask
          (i8x16.bitmask (i8x16.eq (v128.load (local.get $at)) (i8x16.splat (i32.const 10)))))
        ;; A pair ends at bit i when bit i - 1 is set too (bit -1: the last byte of the block before).
        (local.set $pairs
          (i32.and
            (local.get $mask)
            (i32.or (i32.shl (local.get $mask) (i32.const 1)) (local.get $carry))))
        (if (local.get $pairs)
          (then
            (local.set $at (i32.sub (i32.add (local.get $at) (i32.ctz (local.get $pairs))) (local.get $ptr)))
            (br_if $none (i32.ge_u (local.get $at) (local.get $len)))
            (return (local.get $at))))
        (local.set $carry (i32.and (i32.shr_u (local.get $mask) (i32.const 15)) (i32.const 1)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $next)))
    (i32.const -1)))
