package api

import (
	"logq/exec"
	"logq/logstore"
	"logq/storage"
)

// Backend is the storage engine the server serves: queries run over it
// (exec.Storage), events are ingested into it and its sources listed
// (storage.Engine). Local makes one of the local store; cmd makes the
// others.
type Backend interface {
	exec.Storage
	storage.Engine
}

// Local is the local log store as a Backend. Its data directory's own
// metrics (recovery, disk, column cache, merges) are exported at /metrics.
func Local(st *logstore.Store) Backend { return localBackend{exec.Local(st), st} }

type localBackend struct {
	exec.Storage
	*logstore.Store
}
