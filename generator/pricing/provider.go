package pricing

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// offer is one price a provider reported, before the SKU map is applied.
type offer struct {
	SKU        string
	USDPerHour float64 // for the whole instance; per GPU when Offers is set
	Currency   string
	Region     string
	Offers     *Offers // a marketplace summary, per GPU-hour
}

// fetchResult is what one provider's fetch returns.
type fetchResult struct {
	Offers   []offer
	Scope    string   // what was kept: region, meter kinds, filters
	Warnings []string // offers dropped, outliers, …
}

// provider is one price source.
type provider struct {
	ID, Name        string
	DefaultEndpoint string
	fetch           func(ctx context.Context, c *client, endpoint string, skus []SKU, env func(string) string) (*fetchResult, error)
}

// Providers lists every provider sync knows, in the order it runs them.
func Providers() []string { return []string{"azure", "runpod", "vastai"} }

func lookupProvider(id string) (provider, bool) {
	switch id {
	case "azure":
		return provider{ID: "azure", Name: "Azure", DefaultEndpoint: AzureEndpoint, fetch: fetchAzure}, true
	case "runpod":
		return provider{ID: "runpod", Name: "RunPod", DefaultEndpoint: RunPodEndpoint, fetch: fetchRunPod}, true
	case "vastai":
		return provider{ID: "vastai", Name: "Vast.ai", DefaultEndpoint: VastEndpoint, fetch: fetchVast}, true
	}
	return provider{}, false
}

// EndpointVar is the environment variable that overrides a provider's
// endpoint, e.g. DOSSIER_PRICING_AZURE_ENDPOINT.
func EndpointVar(id string) string { return "DOSSIER_PRICING_" + strings.ToUpper(id) + "_ENDPOINT" }

// endpoint is the provider's URL: the override when set (checked), else
// the public one.
func (p provider) endpoint(env func(string) string) (string, error) {
	v := strings.TrimSpace(env(EndpointVar(p.ID)))
	if v == "" {
		return p.DefaultEndpoint, nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: expected an http(s) URL, found %q", EndpointVar(p.ID), v)
	}
	return v, nil
}
