//go:build unix

package store

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// processGone reports whether no process pid runs on this machine.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// pidNamespace names this process's PID namespace (Linux: the number in
// /proc/self/ns/pid's "pid:[4026531836]"), or "" where it cannot tell.
func pidNamespace() string {
	l, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	n := strings.TrimSuffix(strings.TrimPrefix(l, "pid:["), "]")
	for _, r := range n {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return n
}
