package console

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
)

// maxUploadBody bounds a listing form with its photos: the API's multipart
// create limit, twelve photos at the upload limit and the text fields.
const maxUploadBody = listings.MaxPhotos*photos.MaxUploadBytes + 1<<20

// maxFormText bounds one text field of a multipart form (the longest the
// listing takes is a 5000-character description, up to 4 bytes each).
const maxFormText = 32 << 10

type uploadKey struct{}

// upload serves a signed-in page whose form is multipart/form-data (photo
// files). serve() reads only urlencoded forms, so the CSRF token would be
// missing: the form carries it as its first field (a browser sends fields
// in document order), which is read here and handed to serve() as the
// parsed form, where the usual check runs. Nothing else of the body is read
// before that check; the page reads the rest as a stream (uploadReader).
func (c *Console) upload(h pageFunc) httpapi.HandlerFunc {
	inner := c.member(h)
	return func(w http.ResponseWriter, r *http.Request) error {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || mt != "multipart/form-data" {
			return inner(w, r)
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxUploadBody)
		r.PostForm = url.Values{} // serve() finds it parsed and checks its csrf
		mr, err := r.MultipartReader()
		if err != nil {
			return inner(w, r)
		}
		if part, err := mr.NextPart(); err == nil && part.FormName() == "csrf" && part.FileName() == "" {
			tok, _ := io.ReadAll(io.LimitReader(part, 256))
			r.PostForm.Set("csrf", string(tok))
		}
		return inner(w, r.WithContext(context.WithValue(r.Context(), uploadKey{}, mr)))
	}
}

// uploadReader is the rest of a multipart form after its CSRF token, or
// nil when the form was not multipart.
func uploadReader(v *visit) *multipart.Reader {
	mr, _ := v.r.Context().Value(uploadKey{}).(*multipart.Reader)
	return mr
}

// sellingNewData is the create form: what was typed (files cannot be kept,
// so they are chosen again after a refusal) and why it was refused.
type sellingNewData struct {
	Brief, Price, ShippingCost string
	Conditions, Shipping       []option
	Error                      *market.Error
}

func (c *Console) sellingNewPage(v *visit) error {
	return c.render(v, http.StatusOK, "selling_new", sellingNewForm(map[string][]string{}, nil))
}

func sellingNewForm(f url.Values, refusal *market.Error) sellingNewData {
	return sellingNewData{Brief: f.Get("description"), Price: f.Get("price"), ShippingCost: f.Get("shippingCost"),
		Conditions: append([]option{{Value: "", Label: "Let the AI judge from the photos"}}, choose(conditions, f.Get("condition"))...),
		Shipping:   choose(sellingShipping, sellingOr(f.Get("shippingType"), string(listings.ShipFree))),
		Error:      sellingRelabel(refusal)}
}

// sellingCreate creates a listing from photos and a brief as the API's
// multipart create does: each photo is checked and stored as it arrives,
// then ListingOps().Create runs the AI step, which fills what the seller
// left out. A listing the AI step has not finished within the request
// comes back pending_ai; its page waits for it.
func (c *Console) sellingCreate(v *visit) error {
	form := map[string][]string{}
	mr := uploadReader(v)
	if mr == nil {
		return c.sellingNewAgain(v, v.r.PostForm, market.Invalid(market.FieldError{Field: "photos",
			Message: "choose 1 to 12 photos of the item (the form must be sent with its files)"}))
	}
	photoIDs, err := c.sellingReadForm(v, mr, form)
	if err != nil {
		return c.sellingNewAgain(v, form, err)
	}
	var check market.Check
	in := listings.Input{PhotoIDs: market.Opt[[]string]{Set: true, Value: photoIDs}}
	in.Brief = market.Opt[string]{Set: true, Value: sellingField(form, "description")}
	if p := cents(&check, form, "price", "Price"); p != nil {
		in.Price = market.Opt[int64]{Set: true, Value: *p}
	}
	if cond := sellingField(form, "condition"); cond != "" {
		in.Condition = market.Opt[string]{Set: true, Value: cond}
	}
	in.ShippingType = market.Opt[string]{Set: true, Value: sellingOr(sellingField(form, "shippingType"), string(listings.ShipFree))}
	if sc := cents(&check, form, "shippingCost", "Shipping cost"); sc != nil {
		in.ShippingCost = market.Opt[int64]{Set: true, Value: *sc}
	}
	if err := check.Err(); err != nil {
		return c.sellingNewAgain(v, form, err)
	}
	httpapi.Entity(v.r, "listing", "")
	lv, err := c.Ops.ListingOps().Create(v.r.Context(), v.caller(), in)
	if err != nil {
		return c.sellingNewAgain(v, form, err)
	}
	httpapi.Entity(v.r, "listing", lv.Base().ID)
	http.Redirect(v.w, v.r, "/selling/"+lv.Base().ID, http.StatusSeeOther)
	return nil
}

// sellingNewAgain shows the create form again with a refusal, at the
// API's status; an internal error is the error page's.
func (c *Console) sellingNewAgain(v *visit, form map[string][]string, err error) error {
	e := refusal(err)
	if e == nil {
		return err
	}
	return c.render(v, httpapi.Status(e.Code), "selling_new", sellingNewForm(form, e))
}

// sellingReadForm reads the rest of the multipart form: text fields into
// form (checked as the input edge checks urlencoded ones, which it cannot
// see here), and each photo stored as the seller's upload, in order.
func (c *Console) sellingReadForm(v *visit, mr *multipart.Reader, form map[string][]string) ([]string, error) {
	var ids []string
	for fields := 0; ; fields++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return ids, sellingMultipartError(err)
		}
		if fields == 64 {
			return ids, market.Invalid(market.FieldError{Field: "form", Message: "the form has too many fields"})
		}
		name := part.FormName()
		if name == "photos" {
			if part.FileName() == "" {
				continue // the file input with nothing chosen
			}
			if len(ids) == listings.MaxPhotos {
				return ids, market.Invalid(market.FieldError{Field: "photos", Message: "at most 12 photos"})
			}
			id, err := c.Ops.Photos.Put(v.r.Context(), v.user.ID, part)
			if err != nil {
				return ids, sellingPhotoError(err, len(ids), part.FileName())
			}
			ids = append(ids, id)
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, maxFormText+1))
		if err != nil {
			return ids, sellingMultipartError(err)
		}
		if len(b) > maxFormText {
			return ids, market.Invalid(market.FieldError{Field: name, Message: "is too long"})
		}
		if err := httpapi.CheckText(v.r, name, string(b)); err != nil {
			return ids, err
		}
		form[name] = append(form[name], string(b))
	}
}

func sellingMultipartError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return market.Errorf(market.CodePayloadTooLarge, "the photos and the form are larger than %d MiB together", maxUploadBody>>20)
	}
	return market.Invalid(market.FieldError{Field: "photos", Message: "the form could not be read: try again"})
}

// sellingPhotoError names the photo a content error is about.
func sellingPhotoError(err error, i int, name string) error {
	msg, ok := httpapi.PhotoProblem(err)
	if !ok {
		return err
	}
	label := "photo " + strconv.Itoa(i+1)
	if name = strings.TrimSpace(name); name != "" && len(name) <= 200 && httpapi.TextProblem(name) == "" {
		label += " (" + name + ")"
	}
	return market.Invalid(market.FieldError{Field: "photos", Message: label + ": " + msg})
}

func sellingField(f url.Values, k string) string {
	return strings.TrimSpace(f.Get(k))
}

func sellingOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
