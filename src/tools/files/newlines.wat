;; Counts line feeds (0x0A bytes) for read_file's line scan, 16 bytes per step with SIMD.
;; `count(ptr, len)`: the line feeds in memory[ptr, ptr + len); `len` is a multiple of 16 (the caller
;; counts the last few bytes). The memory is one 1 MiB page group: the scan's chunk is read straight into it.
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
    (local.get $count)))
