//go:build unix

package localedge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockStateDir takes the state dir's lock file (path), which says whose it is: a second local
// edge started on the same state dir is refused with the first one's pid, instead of rewriting
// the env file and the API's state under it. The lock is the kernel's (flock), so it goes with
// the process however it ends; unlock releases it.
func lockStateDir(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the state dir's lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid := strings.TrimSpace(string(holder))
			if _, convErr := strconv.Atoi(pid); convErr != nil {
				pid = "unknown"
			}
			return nil, fmt.Errorf("the state dir %s is in use by another local edge (pid %s): stop that one, or give this one "+
				"another --state-dir", filepath.Dir(path), pid)
		}
		return nil, fmt.Errorf("locking the state dir: %w", err)
	}
	if err := writeHolder(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("writing the state dir's lock: %w", err)
	}
	return func() { _ = f.Close() }, nil
}

// writeHolder replaces the lock file's content with this process's pid.
func writeHolder(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}
