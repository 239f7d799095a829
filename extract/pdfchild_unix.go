//go:build unix

package extract

import "syscall"

// limitProcess caps this process's CPU time (it is killed past it) and
// the memory it may map for data.
func limitProcess(cpuSeconds, memBytes int) {
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(cpuSeconds), Max: uint64(cpuSeconds)})
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(memBytes), Max: uint64(memBytes)})
}
