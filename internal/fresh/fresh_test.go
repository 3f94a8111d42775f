package fresh

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waiting is how many callers wait for key's next read.
func (g *Group[K, V]) waiting(key K) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f := g.keys[key]; f != nil {
		return f.waiters
	}
	return 0
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Callers arriving while a read is under way share the next one: one
// query for all of them, and none gets the read that began before it came.
func TestLateCallersShareTheNextRead(t *testing.T) {
	var g Group[string, int]
	var reads atomic.Int32
	release := make(chan struct{})
	read := func(context.Context) (int, error) {
		n := int(reads.Add(1))
		if n == 1 {
			<-release
		}
		return n, nil
	}
	first := make(chan int)
	go func() {
		v, _ := g.Do(context.Background(), "k", read)
		first <- v
	}()
	waitFor(t, func() bool { return reads.Load() == 1 })
	const late = 20
	var wg sync.WaitGroup
	got := make([]int, late)
	for i := range late {
		wg.Go(func() { got[i], _ = g.Do(context.Background(), "k", read) })
	}
	waitFor(t, func() bool { return g.waiting("k") == late })
	close(release)
	if v := <-first; v != 1 {
		t.Fatalf("first caller got %d, want its own read 1", v)
	}
	wg.Wait()
	for i, v := range got {
		if v != 2 {
			t.Fatalf("late caller %d got read %d, want the shared read 2", i, v)
		}
	}
	if n := reads.Load(); n != 2 {
		t.Fatalf("%d reads for %d callers, want 2", n, late+1)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.keys) != 0 {
		t.Fatalf("idle group still holds %d keys", len(g.keys))
	}
}

// The property the package exists for, under load and -race: a value is
// never older than its caller's arrival. A writer keeps moving a version;
// each caller notes the version when it arrives and must get at least that.
func TestNeverOlderThanArrival(t *testing.T) {
	var g Group[int, int64]
	var version atomic.Int64
	var reads, calls atomic.Int64
	read := func(context.Context) (int64, error) {
		reads.Add(1)
		v := version.Load()
		time.Sleep(50 * time.Microsecond) // a query takes time; writes land meanwhile
		return v, nil
	}
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				version.Add(1)
				time.Sleep(10 * time.Microsecond)
			}
		}
	})
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Go(func() {
			for range 300 {
				calls.Add(1)
				arrived := version.Load()
				v, err := g.Do(context.Background(), w%2, read)
				if err != nil {
					t.Error(err)
					return
				}
				if v < arrived {
					t.Errorf("got version %d, older than %d seen on arrival", v, arrived)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	t.Logf("%d calls, %d reads", calls.Load(), reads.Load())
	if reads.Load() >= calls.Load() {
		t.Errorf("%d reads for %d calls: nothing was shared", reads.Load(), calls.Load())
	}
}

// Every caller of a shared read gets its error; a failed read does not
// stick: the next caller reads again.
func TestErrorsAreSharedNotKept(t *testing.T) {
	var g Group[string, int]
	boom := errors.New("boom")
	release := make(chan struct{})
	var reads atomic.Int32
	failing := func(context.Context) (int, error) {
		if reads.Add(1) == 1 {
			<-release
			return 0, nil
		}
		return 0, boom
	}
	go func() { _, _ = g.Do(context.Background(), "k", failing) }()
	waitFor(t, func() bool { return reads.Load() == 1 })
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := g.Do(context.Background(), "k", failing)
			errs <- err
		}()
	}
	waitFor(t, func() bool { return g.waiting("k") == 3 })
	close(release)
	for range 3 {
		if err := <-errs; !errors.Is(err, boom) {
			t.Fatalf("waiter got %v, want boom", err)
		}
	}
	waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.keys) == 0 })
	v, err := g.Do(context.Background(), "k", func(context.Context) (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("after a failure: %d %v, want a new read", v, err)
	}
}

// A waiter that gives up returns at once; the shared read is cancelled
// when the last of its waiters has gone.
func TestWaitersGivingUpCancelTheRead(t *testing.T) {
	var g Group[string, int]
	release := make(chan struct{})
	started := make(chan struct{})
	sharedCancelled := make(chan struct{})
	var reads atomic.Int32
	read := func(ctx context.Context) (int, error) {
		switch reads.Add(1) {
		case 1:
			close(started)
			<-release
			return 1, nil
		default:
			<-ctx.Done()
			close(sharedCancelled)
			return 0, ctx.Err()
		}
	}
	go func() { _, _ = g.Do(context.Background(), "k", read) }()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := g.Do(ctx, "k", read)
			errs <- err
		}()
	}
	waitFor(t, func() bool { return g.waiting("k") == 2 })
	cancel()
	for range 2 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("waiter got %v, want context.Canceled", err)
		}
	}
	close(release) // the shared read starts now, with nobody left to want it
	select {
	case <-sharedCancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the shared read was not cancelled")
	}
}

// A panic in a shared read reaches its callers as an error, not as a crash.
func TestSharedPanicIsAnError(t *testing.T) {
	var g Group[string, int]
	release := make(chan struct{})
	var reads atomic.Int32
	read := func(context.Context) (int, error) {
		if reads.Add(1) == 1 {
			<-release
			return 1, nil
		}
		panic("bad read")
	}
	go func() { _, _ = g.Do(context.Background(), "k", read) }()
	waitFor(t, func() bool { return reads.Load() == 1 })
	errc := make(chan error)
	go func() {
		_, err := g.Do(context.Background(), "k", read)
		errc <- err
	}()
	waitFor(t, func() bool { return g.waiting("k") == 1 })
	close(release)
	if err := <-errc; err == nil {
		t.Fatal("a panicking read gave no error")
	}
}

// Keys do not wait for each other.
func TestKeysAreIndependent(t *testing.T) {
	var g Group[string, string]
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = g.Do(context.Background(), "slow", func(context.Context) (string, error) {
			close(started)
			<-release
			return "slow", nil
		})
	}()
	<-started
	defer close(release)
	v, err := g.Do(context.Background(), "other", func(context.Context) (string, error) { return "other", nil })
	if v != "other" || err != nil {
		t.Fatalf("got %q %v", v, err)
	}
}
