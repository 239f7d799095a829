//go:build !unix

package store

// processGone cannot tell here: the jobs of a gone process are left to
// River's lease and rescue delay.
func processGone(int) bool { return false }

// pidNamespace is empty where there are none.
func pidNamespace() string { return "" }
