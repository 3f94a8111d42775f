package listings

import (
	"context"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
)

// MaxUploadSlots is how many upload URLs one call may ask for (a listing
// holds at most 12 photos).
const MaxUploadSlots = 12

// Photo uploads are bounded twice over. At most maxReceiving bodies are
// read at once, each at most 10 MiB, so the upload bytes held in memory never
// pass 80 MiB; an upload that finds every slot taken is refused at once,
// before its body is read, with 503 SERVICE_UNAVAILABLE and Retry-After. At
// most maxProcessing of them are decoded at a time: a decode takes up to
// photos.ProcessBytesPerPixel bytes a pixel, ~1.6 GB for the largest
// accepted image. Junk is refused after
// its first bytes (photos.ReadImage), and when the uploads stop the memory
// they used goes back to the system (reclaimer).
const (
	maxReceiving   = 8
	maxProcessing  = 2
	busyRetryAfter = 2 // seconds
)

// Photos issues signed upload slots, takes the uploads and finds the stored
// photos to serve.
type Photos struct {
	store     Store
	clock     market.Clock
	signer    *photos.Signer
	objects   photos.Store
	publicURL string
	receiving chan struct{}
	sem       chan struct{}
	reclaim   reclaimer

	// inFlight holds the ids whose PUT is being processed in this process,
	// so a concurrent second PUT of one slot is refused before it can
	// overwrite the first one's stored bytes.
	mu       sync.Mutex
	inFlight map[string]bool
}

// NewPhotos builds the photo service; publicURL is the base of every URL it
// hands out.
func NewPhotos(store Store, clock market.Clock, signer *photos.Signer, objects photos.Store, publicURL string) *Photos {
	return &Photos{store: store, clock: clock, signer: signer, objects: objects, publicURL: publicURL,
		receiving: make(chan struct{}, maxReceiving), sem: make(chan struct{}, maxProcessing), inFlight: map[string]bool{}}
}

// UploadSlot is one issued upload URL and the URL the photo will have.
type UploadSlot struct {
	ID        string
	UploadURL string
	PhotoURL  string
	ExpiresAt time.Time
}

// UploadedPhoto is what a successful PUT stored.
type UploadedPhoto struct {
	ID           string
	PhotoURL     string
	ThumbnailURL string
	ContentType  string
	Width        int
	Height       int
	Size         int64
}

// PhotoURL is the public URL of an uploaded photo.
func (p *Photos) PhotoURL(id string) string {
	return p.publicURL + "/api/v1/photos/" + id
}

// IssueUploads records count upload slots for the actor's owner and returns
// their signed URLs, valid for photos.UploadTTL.
func (p *Photos) IssueUploads(ctx context.Context, actor market.Actor, count int) ([]UploadSlot, error) {
	if count < 1 || count > MaxUploadSlots {
		return nil, market.Invalid(market.FieldError{Field: "count", Message: "must be between 1 and 12"})
	}
	now := p.clock.Now()
	out := make([]UploadSlot, 0, count)
	err := p.store.InTx(ctx, func(tx Tx) error {
		out = out[:0] // a retried transaction starts over
		for range count {
			u := p.signer.NewUpload(actor.UserID, now)
			row := &PhotoUpload{ID: u.ID, OwnerID: actor.UserID, ExpiresAt: u.ExpiresAt, CreatedAt: now}
			if err := tx.CreatePhotoUpload(ctx, row); err != nil {
				return err
			}
			out = append(out, UploadSlot{ID: u.ID, ExpiresAt: u.ExpiresAt, PhotoURL: p.PhotoURL(u.ID),
				UploadURL: p.publicURL + "/api/v1/photos/uploads/" + u.ID + "?token=" + u.Token})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Upload fills slot id with the image in body. The token is checked first
// (NOT_FOUND when it is not one this service issued for id, VALIDATION_ERROR
// on "token" once expired); a used slot is INVALID_STATE. The image is read,
// checked and stored before the transaction that marks the slot used, so no
// transaction is held open while an image decodes.
// size is the body's length when the request says it (-1 otherwise).
func (p *Photos) Upload(ctx context.Context, id, token string, body io.Reader, size int64) (*UploadedPhoto, error) {
	owner, err := p.signer.Verify(id, token, p.clock.Now())
	if err != nil {
		return nil, err
	}
	if err := p.checkSlot(ctx, p.store.Read(), id, owner); err != nil {
		return nil, err
	}
	if !p.claim(id) {
		return nil, used()
	}
	defer p.release(id)

	processed, err := p.receive(ctx, body, size)
	if err != nil {
		return nil, err
	}
	if _, err := photos.Save(ctx, p.objects, id, processed); err != nil {
		return nil, err
	}

	row := &PhotoUpload{ID: id, ContentType: processed.ContentType, Width: processed.Width, Height: processed.Height,
		Size: int64(processed.Size())}
	err = p.store.InTx(ctx, func(tx Tx) error {
		if err := p.checkSlot(ctx, tx, id, owner); err != nil {
			return err
		}
		now := p.clock.Now()
		row.UploadedAt = &now
		return tx.MarkPhotoUploaded(ctx, row)
	})
	if err != nil {
		return nil, err
	}
	url := p.PhotoURL(id)
	return &UploadedPhoto{ID: id, PhotoURL: url, ThumbnailURL: url + "/thumbnail", ContentType: row.ContentType,
		Width: row.Width, Height: row.Height, Size: row.Size}, nil
}

// checkSlot makes sure the slot exists for owner and is still unused.
func (p *Photos) checkSlot(ctx context.Context, tx Tx, id, owner string) error {
	row, err := tx.PhotoUploadByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || (err == nil && row.OwnerID != owner) {
		return market.NotFound("upload")
	}
	if err != nil {
		return err
	}
	if row.UploadedAt != nil {
		return used()
	}
	return nil
}

func used() error {
	return market.Errorf(market.CodeInvalidState, "this upload URL has already been used")
}

func (p *Photos) claim(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inFlight[id] {
		return false
	}
	p.inFlight[id] = true
	return true
}

func (p *Photos) release(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inFlight, id)
}

// receive reads and processes one upload body within the bounds above.
func (p *Photos) receive(ctx context.Context, body io.Reader, size int64) (*photos.Processed, error) {
	select {
	case p.receiving <- struct{}{}:
	default:
		return nil, market.Errorf(market.CodeUnavailable, "too many photos are being uploaded right now; try again in a few seconds").
			WithDetails(map[string]any{"retry_after": int64(busyRetryAfter)})
	}
	p.reclaim.begin()
	var held int
	defer func() {
		<-p.receiving
		p.reclaim.end(held)
	}()
	// The body is read outside the decode semaphore: a slow client must not
	// hold a processing slot.
	data, err := photos.ReadImage(body, size)
	if err != nil {
		return nil, err
	}
	held = cap(data)
	return p.process(ctx, data)
}

// process runs photos.Process under the concurrency limit.
func (p *Photos) process(ctx context.Context, data []byte) (*photos.Processed, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, market.Internal(ctx.Err())
	}
	defer func() { <-p.sem }()
	return photos.Process(data)
}

// Object finds the stored photo of an uploaded slot (or its thumbnail) for
// serving: NOT_FOUND for an unknown id or a slot not uploaded yet.
func (p *Photos) Object(ctx context.Context, id string, thumbnail bool) (photos.Store, string, error) {
	if !market.ValidID(id) {
		return nil, "", market.NotFound("photo")
	}
	row, err := p.store.Read().PhotoUploadByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || (err == nil && row.UploadedAt == nil) {
		return nil, "", market.NotFound("photo")
	}
	if err != nil {
		return nil, "", err
	}
	ext := ".jpg"
	if row.ContentType == photos.TypePNG {
		ext = ".png"
	}
	k := photos.Keys(id, ext)
	if thumbnail {
		return p.objects, k.ThumbKey, nil
	}
	return p.objects, k.Key, nil
}

// Thumbnails reads up to max thumbnails of the given photos for a generator;
// a photo that cannot be read is left out rather than failing generation.
func (p *Photos) Thumbnails(ctx context.Context, ids []string, max int) []Image {
	var out []Image
	for _, id := range ids {
		if len(out) == max {
			break
		}
		objects, key, err := p.Object(ctx, id, true)
		if err != nil {
			continue
		}
		rc, _, err := objects.Open(ctx, key)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rc, photos.MaxUploadBytes))
		rc.Close()
		if err == nil {
			out = append(out, Image{MIME: photos.TypeJPEG, Data: data})
		}
	}
	return out
}

// PhotoID finds the upload id in a photo URL this service handed out; ok is
// false for any other URL.
func (p *Photos) PhotoID(url string) (id string, ok bool) {
	id, found := strings.CutPrefix(url, p.PhotoURL(""))
	if !found || !market.ValidID(id) {
		return "", false
	}
	return id, true
}

// PhotoIDs maps photo URLs to upload ids; field names the input in errors.
func (p *Photos) PhotoIDs(field string, urls []string) ([]string, error) {
	ids := make([]string, len(urls))
	var c market.Check
	for i, u := range urls {
		id, ok := p.PhotoID(u)
		c.Require(ok, field+"["+strconv.Itoa(i)+"]", "is not a photo URL uploaded to this marketplace")
		ids[i] = id
	}
	return ids, c.Err()
}

// Put stores an image sent inline (Variant B's multipart create) as an
// uploaded photo of owner, as if through a slot issued and filled at once.
func (p *Photos) Put(ctx context.Context, ownerID string, body io.Reader) (string, error) {
	processed, err := p.receive(ctx, body, -1)
	if err != nil {
		return "", err
	}
	id := market.NewID()
	if _, err := photos.Save(ctx, p.objects, id, processed); err != nil {
		return "", err
	}
	now := p.clock.Now()
	row := &PhotoUpload{ID: id, OwnerID: ownerID, ExpiresAt: now, UploadedAt: &now, ContentType: processed.ContentType,
		Width: processed.Width, Height: processed.Height, Size: int64(processed.Size()), CreatedAt: now}
	err = p.store.InTx(ctx, func(tx Tx) error { return tx.CreatePhotoUpload(ctx, row) })
	return id, err
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
