//go:build !unix

package testkit

import "testing"

// CPUSeconds is not measured on this platform: it returns 0.
func CPUSeconds(testing.TB) float64 { return 0 }
