package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/listings/photos"
)

type uploadURLsInput struct {
	Count *int `json:"count" minimum:"1" maximum:"12" nullable:"false" required:"true" doc:"How many upload URLs to issue."`
}

type uploadSlot struct {
	UploadURL string    `json:"uploadUrl" doc:"'PUT' the raw image bytes here, once, before 'expiresAt'."`
	PhotoURL  string    `json:"photoUrl" doc:"Where the photo is served once uploaded; what listing create accepts."`
	ExpiresAt time.Time `json:"expiresAt"`
}

type uploadSlots struct {
	Uploads []uploadSlot `json:"uploads" minItems:"1" maxItems:"12"`
}

type uploadedPhoto struct {
	ID           string `json:"id" format:"uuid"`
	PhotoURL     string `json:"photoUrl"`
	ThumbnailURL string `json:"thumbnailUrl"`
	ContentType  string `json:"contentType" enum:"image/jpeg,image/png" doc:"Of the stored photo."`
	Width        int    `json:"width" minimum:"1" doc:"Pixels, upright."`
	Height       int    `json:"height" minimum:"1"`
	Size         int64  `json:"size" minimum:"1" doc:"Bytes of the stored photo."`
}

// photoUploadURLs issues upload slots; issuing creates no resource the
// caller addresses yet, so it answers 200 (CONTRACT.md section 10).
func (a *API) photoUploadURLs(w http.ResponseWriter, r *http.Request) error {
	// The slots are many; the audit names the kind only.
	httpapi.Entity(r, "photo", "")
	var in uploadURLsInput
	if err := httpapi.Decode(r, &in); err != nil {
		return err
	}
	count := 0 // a missing count fails the range check like 0 does
	if in.Count != nil {
		count = *in.Count
	}
	slots, err := a.Photos.IssueUploads(r.Context(), actor(r).Actor, count)
	if err != nil {
		return err
	}
	out := uploadSlots{Uploads: make([]uploadSlot, len(slots))}
	for i, s := range slots {
		out.Uploads[i] = uploadSlot{UploadURL: s.UploadURL, PhotoURL: s.PhotoURL, ExpiresAt: s.ExpiresAt}
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// uploadPhoto takes the raw image bytes of a signed upload URL. The body is
// not JSON and may be up to 10 MiB, so it bypasses httpapi.Decode; the
// content, not the Content-Type header, decides what the image is.
func (a *API) uploadPhoto(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "photo")
	p, err := a.Photos.Upload(r.Context(), id, r.URL.Query().Get("token"), r.Body, r.ContentLength)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toUploadedPhoto(p))
}

func toUploadedPhoto(p *listings.UploadedPhoto) uploadedPhoto {
	return uploadedPhoto{ID: p.ID, PhotoURL: p.PhotoURL, ThumbnailURL: p.ThumbnailURL, ContentType: p.ContentType,
		Width: p.Width, Height: p.Height, Size: p.Size}
}

func (a *API) servePhoto(w http.ResponseWriter, r *http.Request) error {
	return a.serveStoredPhoto(w, r, false)
}

func (a *API) servePhotoThumbnail(w http.ResponseWriter, r *http.Request) error {
	return a.serveStoredPhoto(w, r, true)
}

func (a *API) serveStoredPhoto(w http.ResponseWriter, r *http.Request, thumbnail bool) error {
	objects, key, err := a.Photos.Object(r.Context(), r.PathValue("id"), thumbnail)
	if err != nil {
		return err
	}
	return photos.ServeObject(w, r, objects, key)
}
