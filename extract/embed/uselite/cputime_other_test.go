//go:build !unix

package uselite

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
