package accounts

import (
	"context"
	"io"
	"strings"
	"time"

	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
)

// Avatars (CONTRACT.md section 17) take the photo upload path: a signed,
// single-use upload URL, the body read and decoded under the bounds every
// upload shares (photos.Intake), the image re-encoded without metadata. An
// avatar must be a JPEG or PNG of at most 5 MiB and is stored as a
// 256-pixel square cut from its centre. Only an avatar URL this service
// handed to a user, and whose upload completed, may become that user's
// avatar.

// AvatarUpload is one issued avatar upload slot.
type AvatarUpload struct {
	ID          string
	OwnerID     string
	ExpiresAt   time.Time
	UploadedAt  *time.Time
	ContentType string // of the stored image, once uploaded
	Size        int64
	CreatedAt   time.Time
}

// AvatarSlot is an issued upload URL and the URL the avatar will have.
type AvatarSlot struct {
	ID        string
	UploadURL string
	AvatarURL string
	ExpiresAt time.Time
}

// UploadedAvatar is what a successful PUT stored.
type UploadedAvatar struct {
	AvatarURL   string
	ContentType string
	Width       int
	Height      int
	Size        int64
}

// Avatars issues avatar upload slots, takes the uploads and finds the
// stored images to serve.
type Avatars struct {
	store     Store
	clock     market.Clock // timestamps
	realTime  market.Clock // upload URL expiry (a token: real time, CONTRACT.md section 10)
	signer    *photos.Signer
	objects   photos.Store
	intake    *photos.Intake
	publicURL string
}

// NewAvatars builds the avatar service; signer must be the avatars' own
// (photos.NewAvatarSigner) and intake the one listing photos use.
func NewAvatars(store Store, clock, realTime market.Clock, signer *photos.Signer, objects photos.Store,
	intake *photos.Intake, publicURL string) *Avatars {
	return &Avatars{store: store, clock: clock, realTime: realTime, signer: signer, objects: objects, intake: intake,
		publicURL: publicURL}
}

// AvatarURL is where avatar upload id is served.
func (a *Avatars) AvatarURL(id string) string { return a.publicURL + "/api/v1/avatars/" + id }

// IssueUpload records an upload slot for the caller, valid for
// photos.UploadTTL of real time. contentType says what the caller means to
// send, image/jpeg or image/png; the content decides what it is.
func (a *Avatars) IssueUpload(ctx context.Context, actor market.Actor, contentType string) (AvatarSlot, error) {
	if contentType != photos.TypeJPEG && contentType != photos.TypePNG {
		return AvatarSlot{}, market.Invalid(market.FieldError{Field: "content_type", Message: "must be image/jpeg or image/png"})
	}
	u := a.signer.NewUpload(actor.UserID, a.realTime.Now())
	row := &AvatarUpload{ID: u.ID, OwnerID: actor.UserID, ExpiresAt: u.ExpiresAt, CreatedAt: a.clock.Now()}
	if err := a.store.InTx(ctx, func(tx Tx) error { return tx.CreateAvatarUpload(ctx, row) }); err != nil {
		return AvatarSlot{}, err
	}
	return AvatarSlot{ID: u.ID, AvatarURL: a.AvatarURL(u.ID), ExpiresAt: u.ExpiresAt,
		UploadURL: a.publicURL + "/api/v1/avatars/uploads/" + u.ID + "?token=" + u.Token}, nil
}

// Upload fills slot id with the image in body (size its length when the
// request says it, else -1). As for photos: a token this service did not
// issue for id is NOT_FOUND, an expired one VALIDATION_ERROR on "token", a
// used slot INVALID_STATE; the image is read, checked and stored before
// the transaction that marks the slot used.
func (a *Avatars) Upload(ctx context.Context, id, token string, body io.Reader, size int64) (*UploadedAvatar, error) {
	owner, err := a.signer.Verify(id, token, a.realTime.Now())
	if err != nil {
		return nil, err
	}
	if err := checkAvatarSlot(ctx, a.store.Read(), id, owner); err != nil {
		return nil, err
	}
	if !a.intake.Claim(id) {
		return nil, avatarSlotUsed()
	}
	defer a.intake.Release(id)

	img, err := a.intake.Receive(ctx, body, size, photos.AvatarKind)
	if err != nil {
		return nil, err
	}
	if err := a.objects.Put(ctx, photos.AvatarKey(id, img.ContentType), img.Data, img.ContentType); err != nil {
		return nil, err
	}
	row := &AvatarUpload{ID: id, ContentType: img.ContentType, Size: int64(img.Size())}
	err = a.store.InTx(ctx, func(tx Tx) error {
		if err := checkAvatarSlot(ctx, tx, id, owner); err != nil {
			return err
		}
		now := a.clock.Now()
		row.UploadedAt = &now
		return tx.MarkAvatarUploaded(ctx, row)
	})
	if err != nil {
		return nil, err
	}
	return &UploadedAvatar{AvatarURL: a.AvatarURL(id), ContentType: img.ContentType, Width: img.Width,
		Height: img.Height, Size: row.Size}, nil
}

// checkAvatarSlot makes sure the slot exists for owner and is unused.
func checkAvatarSlot(ctx context.Context, tx Tx, id, owner string) error {
	row, err := tx.AvatarUploadByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || (err == nil && row.OwnerID != owner) {
		return market.NotFound("upload")
	}
	if err != nil {
		return err
	}
	if row.UploadedAt != nil {
		return avatarSlotUsed()
	}
	return nil
}

func avatarSlotUsed() error {
	return market.Errorf(market.CodeInvalidState, "this upload URL has already been used")
}

// Object finds a stored avatar for serving: NOT_FOUND for an unknown id or
// a slot not uploaded yet.
func (a *Avatars) Object(ctx context.Context, id string) (photos.Store, string, error) {
	if !market.ValidID(id) {
		return nil, "", market.NotFound("avatar")
	}
	row, err := a.store.Read().AvatarUploadByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || (err == nil && row.UploadedAt == nil) {
		return nil, "", market.NotFound("avatar")
	}
	if err != nil {
		return nil, "", err
	}
	return a.objects, photos.AvatarKey(id, row.ContentType), nil
}

// UploadedBy reports whether url is the avatar URL of an upload userID
// completed. Every other URL (another user's avatar, one not uploaded yet,
// a listing photo, anything external) is false; so is every URL when no
// avatar service is configured (a nil *Avatars).
func (a *Avatars) UploadedBy(ctx context.Context, userID, url string) (bool, error) {
	if a == nil {
		return false, nil
	}
	id, found := strings.CutPrefix(url, a.AvatarURL(""))
	if !found || !market.ValidID(id) {
		return false, nil
	}
	// An uploaded slot never changes again, so a read outside the
	// profile's transaction is as good as one inside it.
	row, err := a.store.Read().AvatarUploadByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return row.OwnerID == userID && row.UploadedAt != nil, nil
}
