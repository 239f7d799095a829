//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processGone reports whether no process pid runs on this machine.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
