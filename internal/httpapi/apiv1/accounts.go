package apiv1

import (
	"net/http"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

type registerBody struct {
	Email         string `json:"email" format:"email" maxLength:"254" required:"true"`
	Password      string `json:"password" minLength:"10" required:"true" doc:"At least 10 characters, at most 256 bytes."`
	DisplayName   string `json:"displayName" minLength:"1" maxLength:"80" required:"true"`
	Username      string `json:"username" pattern:"^([A-Za-z0-9][A-Za-z0-9_.-]{1,28}[A-Za-z0-9])?$" doc:"Optional; empty or absent derives one from the e-mail. Otherwise as 'Username'."`
	AcceptedTerms bool   `json:"acceptedTerms" enum:"true" required:"true" doc:"Must be true."`
}

func (a *API) register(w http.ResponseWriter, r *http.Request) error {
	var b registerBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	u, tok, err := a.Accounts.Register(r.Context(), accounts.RegisterInput{Email: b.Email, Password: b.Password,
		DisplayName: b.DisplayName, Username: b.Username, AcceptedTerms: b.AcceptedTerms})
	if err != nil {
		return err
	}
	httpapi.Entity(r, "user", u.ID)
	return httpapi.OK(w, r, http.StatusCreated, authResult{User: *api.UserOf(u), AccessToken: tok.Value, ExpiresAt: tok.ExpiresAt})
}

type loginBody struct {
	Email    string `json:"email" minLength:"1" required:"true"`
	Password string `json:"password" minLength:"1" required:"true"`
}

func (a *API) login(w http.ResponseWriter, r *http.Request) error {
	var b loginBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	u, tok, err := a.Accounts.Login(r.Context(), b.Email, b.Password, httpapi.ClientIP(r))
	if err != nil {
		return err
	}
	httpapi.Entity(r, "user", u.ID)
	return httpapi.OK(w, r, http.StatusOK, authResult{User: *api.UserOf(u), AccessToken: tok.Value, ExpiresAt: tok.ExpiresAt})
}

// usernameCheck's fields are in the order of the map it replaces.
type usernameCheck struct {
	Available bool    `json:"available"`
	Reason    *string `json:"reason" enum:"invalid,taken" doc:"Null when available."`
	Username  string  `json:"username" doc:"The normalized username."`
}

func (a *API) checkUsername(w http.ResponseWriter, r *http.Request) error {
	c, err := a.Accounts.CheckUsername(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, usernameCheck{Username: c.Username, Available: c.Available, Reason: strOrNil(c.Reason)})
}

func (a *API) me(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.KeyOps().Me(r.Context(), actor(r)))
}

type updateMeBody struct {
	DisplayName *string             `json:"displayName" minLength:"1" maxLength:"80"`
	Username    *string             `json:"username" ref:"Username"`
	AvatarURL   httpapi.Opt[string] `json:"avatarUrl" maxLength:"2048" pattern:"^(https?://[^ \\t\\r\\n]*)?$" nullable:"true" doc:"The 'avatarUrl' of an avatar the caller uploaded (POST /auth/me/avatar-upload-url, then PUT the image); any other URL is refused. Null or empty removes the avatar."`
}

func (a *API) updateMe(w http.ResponseWriter, r *http.Request) error {
	var b updateMeBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	upd := accounts.ProfileUpdate{DisplayName: b.DisplayName, Username: b.Username}
	if b.AvatarURL.Set {
		v := b.AvatarURL.Value // null clears the avatar
		upd.AvatarURL = &v
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	return httpapi.Reply(w, r, http.StatusOK).With(a.AccountOps().UpdateProfile(r.Context(), p, upd))
}

func (a *API) setShipFrom(w http.ResponseWriter, r *http.Request) error {
	var b addressInput
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	return httpapi.Reply(w, r, http.StatusOK).With(a.AccountOps().SetShipFrom(r.Context(), p, b.domain()))
}

type setPasswordBody struct {
	CurrentPassword string `json:"currentPassword" doc:"Required when the account already has a password."`
	NewPassword     string `json:"newPassword" doc:"At least 10 characters, at most 256 bytes."`
	Password        string `json:"password" doc:"Synonym of 'newPassword', used when 'newPassword' is absent or empty."` // accepted as newPassword
}

func (a *API) setPassword(w http.ResponseWriter, r *http.Request) error {
	if err := httpapi.FromPrivateNetwork(r); err != nil {
		return err
	}
	var b setPasswordBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	if b.NewPassword == "" {
		b.NewPassword = b.Password
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	if err := a.Accounts.SetPassword(r.Context(), p.Actor, b.CurrentPassword, b.NewPassword); err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, passwordSet{PasswordSet: true})
}

type passwordSet struct {
	PasswordSet bool `json:"passwordSet" enum:"true"`
}

func (a *API) listAddresses(w http.ResponseWriter, r *http.Request) error {
	out, err := a.AccountOps().Addresses(r.Context(), actor(r))
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, httpapi.Meta{"total": len(out)})
}

func (a *API) addAddress(w http.ResponseWriter, r *http.Request) error {
	var b addressInput
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	ad, err := a.AccountOps().AddAddress(r.Context(), actor(r), b.domain(), b.IsDefault)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "address", ad.ID)
	return httpapi.OK(w, r, http.StatusCreated, ad)
}

// deleted answers a deletion; the fields are in the order of the map it
// replaces.
type deleted struct {
	Deleted bool   `json:"deleted" enum:"true"`
	ID      string `json:"id"`
}

func (a *API) deleteAddress(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "address")
	if err := a.Accounts.DeleteAddress(r.Context(), actor(r).Actor, id); err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, deleted{Deleted: true, ID: id})
}

func (a *API) defaultAddress(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "address")
	return httpapi.Reply(w, r, http.StatusOK).With(a.AccountOps().SetDefaultAddress(r.Context(), actor(r), id))
}

func (a *API) profile(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.AccountOps().Profile(r.Context(), actor(r), r.PathValue("username")))
}
