package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"marketplace/internal/store"
)

// The sandbox clock's offset starts at zero, and concurrent advances all
// count.
func TestSandboxClockOffset(t *testing.T) {
	Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if d, err := db.SandboxClockOffset(ctx); err != nil || d != 0 {
			t.Fatalf("fresh offset = %v, %v", d, err)
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := db.AdvanceSandboxClock(ctx, time.Hour); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		d, err := db.AdvanceSandboxClock(ctx, 30*time.Minute)
		if err != nil || d != 8*time.Hour+30*time.Minute {
			t.Fatalf("offset after nine advances = %v, %v", d, err)
		}
		if got, err := db.SandboxClockOffset(ctx); err != nil || got != d {
			t.Fatalf("read back %v, %v", got, err)
		}
	})
}
