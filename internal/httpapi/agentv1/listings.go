package agentv1

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
)

// spelled spells each view of a page in snake_case, in place: a page holds
// its views as any, where httpapi.Spell does not reach.
func spelled(views []any) []any {
	for i, v := range views {
		views[i] = httpapi.Spell(v, httpapi.Snake)
	}
	return views
}

// maxMultipartBody bounds a multipart create: twelve photos at the upload
// limit and the text fields.
const maxMultipartBody = listings.MaxPhotos*photos.MaxUploadBytes + 1<<20

// createListing is the multipart create: photo files with brief_description,
// condition, price and the other fields as form values.
func (a *API) createListing(w http.ResponseWriter, r *http.Request) error {
	httpapi.Entity(r, "listing", "")
	in, err := a.readMultipart(r, true)
	if err != nil {
		return err
	}
	v, err := a.ListingOps().Create(r.Context(), httpapi.PrincipalOf(r), in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "listing", v.Base().ID)
	return httpapi.OK(w, r, http.StatusCreated, v)
}

// updateListing takes JSON, or multipart when new photo files come along.
func (a *API) updateListing(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "listing")
	var in listings.Input
	var err error
	if isMultipart(r) {
		in, err = a.readMultipart(r, false)
	} else {
		in, err = a.decodeJSONUpdate(r)
	}
	if err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.ListingOps().Update(r.Context(), httpapi.PrincipalOf(r), id, in))
}

func (a *API) getListing(w http.ResponseWriter, r *http.Request) error {
	return httpapi.Reply(w, r, http.StatusOK).With(a.ListingOps().Get(r.Context(), httpapi.PrincipalOf(r), r.PathValue("id")))
}

// archiveListing is DELETE /listings/{id}: the listing leaves sale.
func (a *API) archiveListing(w http.ResponseWriter, r *http.Request) error {
	id := httpapi.PathEntity(r, "listing")
	return httpapi.Reply(w, r, http.StatusOK).With(a.ListingOps().Archive(r.Context(), httpapi.PrincipalOf(r), id))
}

type listingList struct {
	Listings []any `json:"listings" items.ref:"OwnListing"`
	Total    int   `json:"total" minimum:"0" doc:"Matches over all pages."`
	Limit    int   `json:"limit" minimum:"1" maximum:"100"`
	Offset   int   `json:"offset" minimum:"0"`
}

func (a *API) myListings(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	return httpapi.Reply(w, r, http.StatusOK).With(a.myListingsOf(r.Context(), httpapi.PrincipalOf(r), r.URL.Query().Get("status"), limit, offset))
}

// myListingsOf is GET /v1/listings/mine and the get_my_listings tool.
func (a *API) myListingsOf(ctx context.Context, p *httpapi.Principal, status string, limit, offset int) (*listingList, error) {
	page, err := a.ListingOps().Mine(ctx, p, status, limit, offset)
	return listingListOf(page, err, limit, offset)
}

// listingListOf is a page of listings as Variant B spells it.
func listingListOf(page api.ListingPage, err error, limit, offset int) (*listingList, error) {
	if err != nil {
		return nil, err
	}
	return &listingList{Listings: spelled(page.Listings), Total: page.Total, Limit: limit, Offset: offset}, nil
}

func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// readMultipart streams the form: each photo part is checked and stored as
// it arrives (nothing holds twelve images in memory), the text parts fill
// the input.
func (a *API) readMultipart(r *http.Request, create bool) (listings.Input, error) {
	var in listings.Input
	if !isMultipart(r) {
		return in, market.Invalid(market.FieldError{Field: "photos",
			Message: "send multipart/form-data with photo files and brief_description"})
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxMultipartBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return in, market.Invalid(market.FieldError{Field: "photos", Message: "the multipart body cannot be read"})
	}
	owner := actor(r).UserID
	form := map[string]string{}
	var photoIDs []string
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return in, multipartError(err)
		}
		name := strings.TrimSuffix(part.FormName(), "[]")
		if name == "photos" || name == "photo" || part.FileName() != "" {
			if len(photoIDs) == listings.MaxPhotos {
				return in, market.Invalid(market.FieldError{Field: "photos", Message: "at most 12 photos"})
			}
			id, err := a.storePhoto(r.Context(), owner, len(photoIDs), part)
			if err != nil {
				return in, err
			}
			photoIDs = append(photoIDs, id)
			continue
		}
		v, err := io.ReadAll(io.LimitReader(part, 64<<10))
		if err != nil {
			return in, multipartError(err)
		}
		if err := httpapi.CheckText(r, name, string(v)); err != nil {
			return in, err // the edge cannot see into multipart parts
		}
		form[name] = string(v)
	}
	in, err = formInput(form, create)
	if c, ok := form["category"]; ok && !in.CategoryID.Set {
		// A slug (or an id) of the taxonomy; anything else fails the
		// category check under category_id.
		in.CategoryID = market.Opt[string]{Set: true, Value: c}
		if cat, ok := a.Listings.ResolveCategory(r.Context(), strings.TrimSpace(c)); ok {
			in.CategoryID.Value = cat.ID
		}
	}
	if err != nil {
		return in, err
	}
	if create || len(photoIDs) > 0 {
		in.PhotoIDs = market.Opt[[]string]{Set: true, Value: photoIDs}
	}
	return in, nil
}

func multipartError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return market.Errorf(market.CodePayloadTooLarge, "the request is larger than %d bytes", maxMultipartBody)
	}
	return market.Invalid(market.FieldError{Field: "photos", Message: "the multipart body is malformed"})
}

// storePhoto checks and stores the i-th photo sent inline (a multipart
// part, or base64 content in the create_listing tool) as owner's upload.
func (a *API) storePhoto(ctx context.Context, owner string, i int, body io.Reader) (string, error) {
	id, err := a.Photos.Put(ctx, owner, body)
	if err != nil {
		return "", renamePhotoError(err, i)
	}
	return id, nil
}

// renamePhotoError names the photo a content error is about.
func renamePhotoError(err error, i int) error {
	msg, ok := httpapi.PhotoProblem(err)
	if !ok {
		return err
	}
	return market.Invalid(market.FieldError{Field: "photos[" + strconv.Itoa(i) + "]", Message: msg})
}

// formInput reads the text fields of a multipart form.
func formInput(form map[string]string, create bool) (listings.Input, error) {
	var in listings.Input
	var c market.Check
	str := func(key string) market.Opt[string] {
		v, ok := form[key]
		return market.Opt[string]{Set: ok, Value: v}
	}
	num := func(key string) market.Opt[int64] {
		v, ok := form[key]
		if !ok {
			return market.Opt[int64]{}
		}
		if strings.TrimSpace(v) == "" || v == "null" {
			return market.Opt[int64]{Set: true, Null: true}
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		c.Require(err == nil, key, "must be a whole number of cents")
		return market.Opt[int64]{Set: true, Value: n}
	}
	if create {
		in.Brief = str("brief_description")
		if !in.Brief.Set {
			in.Brief = str("description")
		}
	} else {
		in.Description = str("description")
	}
	in.Title, in.Brand = str("title"), str("brand")
	in.Condition = conditionInput(str("condition"))
	in.ShippingType = str("shipping_type")
	in.Price, in.ShippingCost = num("price"), num("shipping_cost")
	in.MinOfferAmount, in.FloorPrice, in.CostBasis = num("min_offer_amount"), num("floor_price"), num("cost_basis")
	if v, ok := form["accept_offers"]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		c.Require(err == nil, "accept_offers", "must be true or false")
		in.AcceptOffers = market.Opt[bool]{Set: true, Value: b}
	}
	in.CategoryID = str("category_id")
	if v, ok := form["dimensions"]; ok {
		var d api.Dimensions
		err := json.Unmarshal([]byte(v), &d)
		c.Require(err == nil, "dimensions", `must be JSON like {"l": 12, "w": 9, "h": 4} (inches)`)
		in.Dimensions = market.Opt[listings.Dimensions]{Set: true, Value: d.Package()}
	}
	if v, ok := form["weight_oz"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		c.Require(err == nil, "weight_oz", "must be a whole number of ounces")
		in.WeightOz = market.Opt[int]{Set: true, Value: n}
	}
	return in, c.Err()
}

// conditionInput accepts Variant B's "new" as new without tags (the tag
// state is unknown), besides every stored condition.
func conditionInput(o market.Opt[string]) market.Opt[string] {
	if o.Set && strings.TrimSpace(o.Value) == "new" {
		o.Value = "new_without_tags"
	}
	return o
}

// updateInput is the JSON update body.
type updateInput struct {
	Title          httpapi.Opt[string]         `json:"title" minLength:"1" maxLength:"80" doc:"1 to 80 characters (trimmed)."`
	Description    httpapi.Opt[string]         `json:"description" minLength:"1" maxLength:"5000" doc:"The full description, 1 to 5000 characters (trimmed)."`
	Brand          httpapi.Opt[string]         `json:"brand" maxLength:"60" nullable:"true" doc:"At most 60 characters; null or empty clears it."`
	Price          httpapi.Opt[int64]          `json:"price" minimum:"1" maximum:"1000000000" doc:"Cents; makes 'price_source' 'seller'."`
	Condition      httpapi.Opt[string]         `json:"condition" ref:"ConditionInput"`
	CategoryID     httpapi.Opt[string]         `json:"category_id"`
	ShippingType   httpapi.Opt[string]         `json:"shipping_type" ref:"ShippingType"`
	ShippingCost   httpapi.Opt[int64]          `json:"shipping_cost" minimum:"0" maximum:"1000000000" nullable:"true"`
	AcceptOffers   httpapi.Opt[bool]           `json:"accept_offers"`
	MinOfferAmount httpapi.Opt[int64]          `json:"min_offer_amount" minimum:"1" maximum:"1000000000" nullable:"true"`
	FloorPrice     httpapi.Opt[int64]          `json:"floor_price" minimum:"0" maximum:"1000000000" nullable:"true"`
	CostBasis      httpapi.Opt[int64]          `json:"cost_basis" minimum:"0" maximum:"1000000000" nullable:"true"`
	WeightOz       httpapi.Opt[int]            `json:"weight_oz" minimum:"1" maximum:"2400"`
	Dimensions     httpapi.Opt[api.Dimensions] `json:"dimensions" ref:"ListingDimensionsInput"`
	Photos         httpapi.Opt[[]string]       `json:"photos" minItems:"1" maxItems:"12" doc:"Replaces the photos with uploaded photo URLs (from '/api/v1/listings/photos/upload-urls'), none repeated."`
}

func (a *API) decodeJSONUpdate(r *http.Request) (listings.Input, error) {
	var u updateInput
	if err := httpapi.Decode(r, &u); err != nil {
		return listings.Input{}, err
	}
	in := listings.Input{Title: u.Title, Description: u.Description, Brand: u.Brand, Price: u.Price,
		Condition: conditionInput(u.Condition), CategoryID: u.CategoryID, ShippingType: u.ShippingType,
		ShippingCost: u.ShippingCost, AcceptOffers: u.AcceptOffers, MinOfferAmount: u.MinOfferAmount,
		FloorPrice: u.FloorPrice, CostBasis: u.CostBasis, WeightOz: u.WeightOz}
	if u.Dimensions.Set {
		in.Dimensions = market.Opt[listings.Dimensions]{Set: true, Null: u.Dimensions.Null,
			Value: u.Dimensions.Value.Package()}
	}
	if u.Photos.Set {
		in.PhotoIDs = market.Opt[[]string]{Set: true, Null: u.Photos.Null, Value: u.Photos.Value}
		if !u.Photos.Null && len(u.Photos.Value) <= listings.MaxPhotos {
			ids, err := a.Photos.PhotoIDs("photos", u.Photos.Value)
			if err != nil {
				return listings.Input{}, err
			}
			in.PhotoIDs.Value = ids
		}
	}
	return in, nil
}
