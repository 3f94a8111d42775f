package listings

import (
	"context"
	"io"
	"strconv"
	"strings"
	"time"

	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
)

// MaxUploadSlots is how many upload URLs one call may ask for (a listing
// holds at most 12 photos).
const MaxUploadSlots = 12

// Photos issues signed upload slots, takes the uploads and finds the stored
// photos to serve.
type Photos struct {
	store     Store
	clock     market.Clock
	signer    *photos.Signer
	objects   photos.Store
	intake    *photos.Intake // the bounds on uploads in memory, shared with avatars
	publicURL string
}

// NewPhotos builds the photo service; publicURL is the base of every URL it
// hands out.
func NewPhotos(store Store, clock market.Clock, signer *photos.Signer, objects photos.Store, intake *photos.Intake, publicURL string) *Photos {
	return &Photos{store: store, clock: clock, signer: signer, objects: objects, intake: intake, publicURL: publicURL}
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
	if !p.intake.Claim(id) {
		return nil, used()
	}
	defer p.intake.Release(id)

	processed, err := p.intake.Receive(ctx, body, size, photos.PhotoKind)
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
	processed, err := p.intake.Receive(ctx, body, -1, photos.PhotoKind)
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
