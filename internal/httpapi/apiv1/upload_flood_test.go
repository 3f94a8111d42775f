package apiv1_test

import (
	"bytes"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

// heapInUse is the bytes of live and not yet swept heap objects, and
// retained what the heap holds from the system (not released to it).
func heapNow() (inUse, retained uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	inUse = s[0].Value.Uint64()
	return inUse, inUse + s[1].Value.Uint64() + s[2].Value.Uint64()
}

// TestUploadFlood sends 150 photo uploads of 10 MiB at once, junk and
// image-looking junk: the service reads at most eight bodies at a time and
// refuses the rest at once with 503 and Retry-After, refuses junk after its
// first bytes, keeps its heap within a bound, and gives the memory back
// afterwards. Not parallel: it measures the process's heap.
func TestUploadFlood(t *testing.T) {
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("Flood")
		var urls []string
		for len(urls) < 150 {
			r := s.Do("POST", "/api/v1/listings/photos/upload-urls", map[string]any{"count": 12}, u.Auth()).Want(t, http.StatusOK, "")
			for _, up := range r.Data()["uploads"].([]any) {
				urls = append(urls, up.(map[string]any)["uploadUrl"].(string))
			}
		}
		urls = urls[:150]
		junk := bytes.Repeat([]byte("junk"), 10<<20/4)
		fake := append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, junk[4:]...) // a JPEG's signature, then junk

		runtime.GC()
		baseInUse, _ := heapNow()
		var peak uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				if in, _ := heapNow(); in > peak {
					peak = in
				}
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()

		var mu sync.Mutex
		statuses := map[int]int{}
		var retryAfter []string
		var wg sync.WaitGroup
		client := &http.Client{Timeout: 2 * time.Minute}
		for i, url := range urls {
			body := junk
			if i%3 == 0 {
				body = fake
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("PUT", url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "image/jpeg")
				resp, err := client.Do(req)
				mu.Lock()
				defer mu.Unlock()
				if err != nil { // the server answered early and closed while the body was still going
					statuses[-1]++
					return
				}
				resp.Body.Close()
				statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusServiceUnavailable {
					retryAfter = append(retryAfter, resp.Header.Get("Retry-After"))
				}
			}()
		}
		wg.Wait()
		close(stop)
		<-sampled
		t.Logf("answers %v; heap in use %d MiB before, peak %d MiB", statuses, baseInUse>>20, peak>>20)

		for code := range statuses {
			if code != -1 && code != http.StatusBadRequest && code != http.StatusServiceUnavailable {
				t.Errorf("unexpected answer %d", code)
			}
		}
		if statuses[http.StatusBadRequest] == 0 {
			t.Error("no upload was refused as not an image")
		}
		if statuses[http.StatusServiceUnavailable] == 0 {
			t.Error("150 uploads at once were all taken in")
		}
		for _, ra := range retryAfter {
			if ra != "2" {
				t.Fatalf("503 with Retry-After %q, want 2", ra)
			}
		}
		// Eight bodies of 10 MiB at most are held; the rest is the HTTP
		// machinery of 150 connections.
		if grew := int64(peak) - int64(baseInUse); grew > 200<<20 {
			t.Errorf("the heap grew by %d MiB during the flood, want at most 200", grew>>20)
		}

		// Once the uploads stop, the memory they used goes back.
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, retained := heapNow()
			if retained < uint64(baseInUse)+128<<20 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the heap still holds %d MiB from the system 10 s after the flood", retained>>20)
			}
			time.Sleep(100 * time.Millisecond)
		}

		// A real photo still goes through.
		ok := s.UploadPhotos(u.Auth(), 1)
		if len(ok) != 1 || !strings.Contains(ok[0], "/photos/") {
			t.Fatalf("upload after the flood: %v", ok)
		}
	})
}
