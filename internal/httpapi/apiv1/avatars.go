package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings/photos"
)

// RegisterAvatars adds the avatar upload routes (CONTRACT.md section 17):
// the owner asks for an upload URL, PUTs the image there, then sets the
// avatar with PATCH /auth/me; the stored image is served publicly.
func (a *API) RegisterAvatars(rt *httpapi.Router) {
	rt = rt.In("accounts")
	p := Prefix
	rt.Handle("POST", p+"/auth/me/avatar-upload-url", httpapi.Bearer, a.avatarUploadURL)
	rt.HandleBinary("PUT", p+"/avatars/uploads/{id}", httpapi.Public, a.uploadAvatar)
	rt.Handle("GET", p+"/avatars/{id}", httpapi.Public, a.serveAvatar)
}

type avatarUploadInput struct {
	ContentType string `json:"contentType" enum:"image/jpeg,image/png" required:"true" doc:"What will be sent. The content decides: any JPEG or PNG is taken."`
}

type avatarUploadURL struct {
	UploadURL string    `json:"uploadUrl" doc:"'PUT' the raw image bytes here, once, before 'expiresAt'."`
	AvatarURL string    `json:"avatarUrl" doc:"Where the avatar is served once uploaded; what 'PATCH /auth/me' takes as 'avatarUrl'."`
	ExpiresAt time.Time `json:"expiresAt" doc:"15 minutes after issue."`
}

type uploadedAvatar struct {
	AvatarURL   string `json:"avatarUrl"`
	ContentType string `json:"contentType" enum:"image/jpeg,image/png" doc:"Of the stored image: JPEG, or PNG when it has transparency."`
	Width       int    `json:"width" enum:"256"`
	Height      int    `json:"height" enum:"256"`
	Size        int64  `json:"size" minimum:"1" doc:"Bytes of the stored image."`
}

// avatarUploadURL issues one upload slot; like photo upload URLs it answers
// 200 (CONTRACT.md section 10).
func (a *API) avatarUploadURL(w http.ResponseWriter, r *http.Request) error {
	var in avatarUploadInput
	if err := httpapi.Decode(r, &in); err != nil {
		return err
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	s, err := a.Avatars.IssueUpload(r.Context(), p.Actor, in.ContentType)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, avatarUploadURL{UploadURL: s.UploadURL, AvatarURL: s.AvatarURL, ExpiresAt: s.ExpiresAt})
}

// uploadAvatar takes the raw image bytes of a signed avatar upload URL (the
// body bypasses httpapi.Decode, as a photo upload's does).
func (a *API) uploadAvatar(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "avatar")
	u, err := a.Avatars.Upload(r.Context(), id, r.URL.Query().Get("token"), r.Body, r.ContentLength)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, uploadedAvatar{AvatarURL: u.AvatarURL, ContentType: u.ContentType,
		Width: u.Width, Height: u.Height, Size: u.Size})
}

func (a *API) serveAvatar(w http.ResponseWriter, r *http.Request) error {
	objects, key, err := a.Avatars.Object(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return photos.ServeObject(w, r, objects, key)
}
