package photos

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"marketplace/internal/market"
)

// S3 is a Store in a bucket of an S3-compatible service (AWS S3, MinIO,
// R2, ...), for replicas that share no disk.
type S3 struct {
	client *minio.Client
	bucket string
}

// NewS3 uses bucket through client; the bucket must exist.
func NewS3(client *minio.Client, bucket string) *S3 {
	return &S3{client: client, bucket: bucket}
}

// S3Options are the settings configuration gives for an S3 store.
type S3Options struct {
	Endpoint  string // host[:port], no scheme
	AccessKey string
	SecretKey string
	Region    string // "" lets the client discover it
	Bucket    string
	Insecure  bool // plain HTTP, for a local MinIO
	PathStyle bool // bucket in the path rather than the host name
	// Transport replaces the default HTTP transport (tests).
	Transport http.RoundTripper
}

// DialS3 builds the client from options and checks that the bucket exists,
// so a misconfiguration fails at start-up rather than on the first upload.
func DialS3(ctx context.Context, o S3Options) (*S3, error) {
	lookup := minio.BucketLookupAuto
	if o.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(o.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""),
		Secure:       !o.Insecure,
		Region:       o.Region,
		BucketLookup: lookup,
		Transport:    o.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("photo store: s3 client: %w", err)
	}
	ok, err := c.BucketExists(ctx, o.Bucket)
	if err != nil {
		return nil, fmt.Errorf("photo store: s3 bucket %q: %w", o.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("photo store: s3 bucket %q does not exist", o.Bucket)
	}
	return NewS3(c, o.Bucket), nil
}

func (s *S3) Put(ctx context.Context, key string, body []byte, contentType string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	// A single PUT with a known length: S3 makes it visible atomically.
	_, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(body), int64(len(body)),
		minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return market.Internal(fmt.Errorf("photo store: put %s: %w", key, err))
	}
	return nil
}

// Open returns a *minio.Object, which is an io.ReadSeekCloser.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error) {
	if err := checkKey(key); err != nil {
		return nil, ObjectInfo{}, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, ObjectInfo{}, s3Error(key, err)
	}
	// GetObject is lazy: Stat makes the request and reports a missing key.
	st, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, ObjectInfo{}, s3Error(key, err)
	}
	return obj, ObjectInfo{
		Size:        st.Size,
		ContentType: st.ContentType,
		ModTime:     st.LastModified.UTC(),
		ETag:        st.ETag,
	}, nil
}

func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	// S3 answers a delete of a missing key with success, as Store wants.
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return s3Error(key, err)
	}
	return nil
}

func s3Error(key string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return photoNotFound()
	}
	return market.Internal(fmt.Errorf("photo store: %s: %w", key, err))
}
