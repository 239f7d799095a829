//go:build !unix

package testdata

import "testing"

// CPUSeconds is not measured on this platform: it returns 0.
func CPUSeconds(testing.TB) float64 { return 0 }
