//go:build !unix

package diff

import "testing"

// cpuTime is not measured on this platform.
func cpuTime(testing.TB) float64 { return 0 }
