package photos

import (
	"context"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"marketplace/internal/market"
)

// Kind is what an upload must be: how many bytes it may have and how it is
// checked and prepared for storage.
type Kind struct {
	MaxBytes int
	Process  func([]byte) (*Processed, error)
}

// The kinds of upload the service takes.
var (
	PhotoKind  = Kind{MaxBytes: MaxUploadBytes, Process: Process}
	AvatarKind = Kind{MaxBytes: MaxAvatarBytes, Process: ProcessAvatar}
)

// Uploads are bounded twice over, every kind together (listing photos and
// avatars share one Intake). At most maxReceiving bodies are read at once,
// each at most MaxUploadBytes, so the upload bytes held in memory never
// pass 80 MiB; an upload that finds every slot taken is refused at once,
// before its body is read, with 503 SERVICE_UNAVAILABLE and Retry-After. At
// most maxProcessing of them are decoded at a time: a decode takes up to
// ProcessBytesPerPixel bytes a pixel, ~1.6 GB for the largest accepted
// image. Junk is refused after its first bytes (ReadImageLimit), and when
// the uploads stop the memory they used goes back to the system
// (reclaimer).
const (
	maxReceiving   = 8
	maxProcessing  = 2
	busyRetryAfter = 2 // seconds
)

// Intake reads and processes upload bodies within the bounds above, and
// keeps one upload slot from being filled twice at once in this process.
type Intake struct {
	receiving chan struct{}
	sem       chan struct{}
	reclaim   reclaimer

	// inFlight holds the slot ids whose PUT is being processed here, so a
	// concurrent second PUT of one slot is refused before it can overwrite
	// the first one's stored bytes.
	mu       sync.Mutex
	inFlight map[string]bool
}

// NewIntake makes the one Intake a process shares between its kinds of
// upload.
func NewIntake() *Intake {
	return &Intake{receiving: make(chan struct{}, maxReceiving), sem: make(chan struct{}, maxProcessing),
		inFlight: map[string]bool{}}
}

// Claim marks slot id as being filled; false when another request of this
// process is filling it already.
func (in *Intake) Claim(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.inFlight[id] {
		return false
	}
	in.inFlight[id] = true
	return true
}

// Release ends a Claim.
func (in *Intake) Release(id string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	delete(in.inFlight, id)
}

// Receive reads one upload body of kind k (size is its length when the
// request says it, else -1) and processes it, within the bounds.
func (in *Intake) Receive(ctx context.Context, body io.Reader, size int64, k Kind) (*Processed, error) {
	select {
	case in.receiving <- struct{}{}:
	default:
		return nil, market.Errorf(market.CodeUnavailable, "too many images are being uploaded right now; try again in a few seconds").
			WithDetails(map[string]any{"retry_after": int64(busyRetryAfter)})
	}
	in.reclaim.begin()
	var held int
	defer func() {
		<-in.receiving
		in.reclaim.end(held)
	}()
	// The body is read outside the decode semaphore: a slow client must not
	// hold a processing slot.
	data, err := ReadImageLimit(body, size, k.MaxBytes)
	if err != nil {
		return nil, err
	}
	held = cap(data)
	select {
	case in.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, market.Internal(ctx.Err())
	}
	defer func() { <-in.sem }()
	return k.Process(data)
}

// reclaimer hands memory back to the system once a burst of uploads is over:
// the binary collects garbage at 5x the live heap (GOGC 400), so the heap a
// burst grew would otherwise stay mapped.
type reclaimer struct {
	mu     sync.Mutex
	active int
	held   int // bytes the uploads since the last hand-back read
	timer  *time.Timer
}

// reclaimAfter is how many upload bytes make a hand-back worth its full
// collection; reclaimDelay how long uploads must have stopped.
const (
	reclaimAfter = 32 << 20
	reclaimDelay = time.Second
)

func (r *reclaimer) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active++
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}

func (r *reclaimer) end(bytes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active--
	r.held += bytes
	if r.active == 0 && r.held >= reclaimAfter && r.timer == nil {
		r.timer = time.AfterFunc(reclaimDelay, r.handBack)
	}
}

func (r *reclaimer) handBack() {
	r.mu.Lock()
	if r.active > 0 || r.timer == nil {
		r.mu.Unlock()
		return
	}
	r.held, r.timer = 0, nil
	r.mu.Unlock()
	debug.FreeOSMemory()
}
