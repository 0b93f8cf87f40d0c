//go:build unix

package server

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes the data directory for this process alone (an exclusive
// flock on DIR/lock, released when the process ends, even by SIGKILL):
// two servers, or a repair and a server, writing one journal at once
// would overwrite each other's acknowledged records.
func lockDir(dir string) (*os.File, error) {
	name := filepath.Join(dir, "lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("data directory %s is in use by another gofluxiond (%s is locked: %v); refusing to start", dir, name, err)
	}
	return f, nil
}
