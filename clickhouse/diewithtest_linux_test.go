package clickhouse

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the kernel kill a test server when the test binary dies,
// however it dies: a test binary killed by -timeout runs no cleanup, and
// its servers would otherwise go on holding ports and memory.
func dieWithTest(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
