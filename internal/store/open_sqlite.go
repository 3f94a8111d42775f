package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultMapSize is how much of the database file OpenSQLite reads through a
// memory map: with each connection's default 2 MB page cache, searches over
// 100,000 listings spent an eighth of their time in read calls.
const DefaultMapSize = 1 << 30

// OpenSQLite opens (creating if needed) the SQLite database at path with
// WAL, foreign keys and a busy timeout, reading pages through a memory map
// of DefaultMapSize.
func OpenSQLite(path string) (*DB, error) { return OpenSQLiteMapped(path, DefaultMapSize) }

// OpenSQLiteMapped is OpenSQLite with a memory map of mapSize bytes per
// connection (0: none). The mapped pages are the kernel's page cache,
// shared and reclaimable, but they count in the process's RSS.
func OpenSQLiteMapped(path string, mapSize int64) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	pragmas := "_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)" +
		fmt.Sprintf("&_pragma=mmap_size(%d)", max(mapSize, 0))
	u := "file:" + (&url.URL{Path: path}).EscapedPath()
	// Checkpoints run in the background (checkpointWAL), not in whichever
	// request's commit crosses the threshold: that commit paid for the
	// WAL's pages and two fsyncs. Statement and savepoint journals (a
	// grouped transaction's savepoints, triggers' statements) stay in
	// memory: past 64 KiB SQLite would spill them to a temporary file,
	// written at each change; they only ever undo one transaction's work.
	write, err := sql.Open("sqlite", u+"?"+pragmas+"&_txlock=immediate&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	read, err := sql.Open("sqlite", u+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(8)
	read.SetMaxIdleConns(8)
	db := &DB{dialect: SQLite, write: write, read: read, walPath: path + "-wal"}
	if err := db.Ping(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	ckpt, err := sql.Open("sqlite", u+"?"+pragmas)
	if err != nil {
		db.Close()
		return nil, err
	}
	ckpt.SetMaxOpenConns(1)
	db.checkpoints = checkpointWAL(ckpt, checkpointEvery, &db.checkpointing)
	return db, nil
}

// ownerOnly makes the database file readable by its owner alone (0600, like
// the generated JWT secret), creating it if need be. SQLite gives its -wal
// and -shm files the database file's mode; those of an older, looser
// database are tightened too.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// checkpointEvery is how often the WAL is copied back into the database.
const checkpointEvery = 200 * time.Millisecond

// checkpointWAL runs passive checkpoints on their own connection until the
// returned stop function is called (which waits for the last one and closes
// the connection). Passive checkpoints never block readers or the writer.
// Each holds mu, as a bulk load's own checkpoints do: SQLite answers one
// checkpoint busy while another runs.
func checkpointWAL(conn *sql.DB, every time.Duration, mu *sync.Mutex) (stop func()) {
	passive := func() {
		mu.Lock()
		defer mu.Unlock()
		_, _ = conn.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				passive()
				return
			case <-t.C:
				passive()
			}
		}
	}()
	var once sync.Once
	return func() { // Close may be called more than once
		once.Do(func() {
			close(done)
			<-finished
			conn.Close()
		})
	}
}
