//go:build !unix

package nlp

import "testing"

// cpuTime is not measured on this platform.
func cpuTime(testing.TB) float64 { return 0 }
