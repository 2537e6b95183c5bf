//go:build !linux

package clickhouse

import "os/exec"

// dieWithTest: only Linux can tie a child's life to its parent's; elsewhere
// the servers are stopped by the tests' own cleanup.
func dieWithTest(c *exec.Cmd) {}
