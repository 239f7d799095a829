package uselite

import (
	"syscall"
	"unsafe"
)

// release tells the kernel that the whole pages of b, read-only data of
// the binary, are not needed: they leave the process's resident memory
// and are read from the file again if touched.
func release(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(syscall.Getpagesize())
	base := unsafe.Pointer(unsafe.SliceData(b))
	start := uintptr(base)
	lo, hi := (start+page-1)&^(page-1), (start+uintptr(len(b)))&^(page-1)
	if hi > lo {
		_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, lo-start)), hi-lo), syscall.MADV_DONTNEED)
	}
}
