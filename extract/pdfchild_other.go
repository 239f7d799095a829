//go:build !unix

package extract

// limitProcess is a no-op where the system has no resource limits: the
// parent's wall-time budget still ends the child.
func limitProcess(cpuSeconds, memBytes int) {}
