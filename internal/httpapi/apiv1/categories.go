package apiv1

import (
	"net/http"

	"marketplace/internal/httpapi"
)

func (a *API) categories(w http.ResponseWriter, r *http.Request) error {
	tree, total, err := a.ListingOps().Categories(r.Context())
	if err != nil {
		return err
	}
	return httpapi.OKMeta(w, r, http.StatusOK, tree, httpapi.Meta{"total": total})
}
