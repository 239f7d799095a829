//go:build !linux

package uselite

// release does nothing here: the embedded weights' pages stay resident.
func release([]byte) {}
