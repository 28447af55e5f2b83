package pricing

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
)

// VastEndpoint is Vast.ai's public offer search.
const VastEndpoint = "https://console.vast.ai/api/v0/bundles/"

// VastMinReliability is the reliability filter: offers whose host scores
// below it are not counted. Vast.ai's own CLI examples use 0.95–0.98.
const VastMinReliability = 0.98

// vastOutlierFactor bounds what counts as an offer: a price more than this
// factor away from the median of its GPU type is reported, not counted.
const vastOutlierFactor = 10

type vastAnswer struct {
	Offers []vastOffer `json:"offers"`
}

type vastOffer struct {
	ID           int64    `json:"id"`
	GPUName      string   `json:"gpu_name"`
	NumGPUs      float64  `json:"num_gpus"`
	DPHTotal     float64  `json:"dph_total"`
	Reliability2 *float64 `json:"reliability2"`
	Reliability  *float64 `json:"reliability"`
	Rentable     *bool    `json:"rentable"`
	Verified     *bool    `json:"verified"`
}

// vastQuery asks for rentable, verified, on-demand offers above the
// reliability filter; the filter is applied again here in case a mirror
// ignores it.
func vastQuery() string {
	q := map[string]any{
		"rentable":     map[string]any{"eq": true},
		"rented":       map[string]any{"eq": false},
		"verified":     map[string]any{"eq": true},
		"reliability2": map[string]any{"gte": VastMinReliability},
		"type":         "on-demand",
		"limit":        5000,
	}
	b, _ := json.Marshal(q)
	return string(b)
}

func fetchVast(ctx context.Context, c *client, endpoint string, _ []SKU, _ func(string) string) (*fetchResult, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("vastai: endpoint %q: %w", endpoint, err)
	}
	qs := u.Query()
	qs.Set("q", vastQuery())
	u.RawQuery = qs.Encode()
	b, err := c.do(ctx, "GET", u.String(), nil, nil)
	if err != nil {
		return nil, err
	}
	var ans vastAnswer
	if err := json.Unmarshal(b, &ans); err != nil {
		return nil, fmt.Errorf("vastai: GET %s: unexpected answer: %w", showURL(u.String()), err)
	}
	if ans.Offers == nil {
		return nil, fmt.Errorf("vastai: GET %s: answer has no offers array: the API's shape changed", showURL(u.String()))
	}
	res := &fetchResult{Scope: fmt.Sprintf("on-demand offers that are rentable and verified, host reliability ≥ %.2f; per GPU-hour = dph_total ÷ num_gpus; offers more than %d× from their GPU type's median are reported, not counted", VastMinReliability, vastOutlierFactor)}
	perType := map[string][]float64{}
	dropped := 0
	for _, o := range ans.Offers {
		rel := o.Reliability2
		if rel == nil {
			rel = o.Reliability
		}
		if rel == nil || *rel < VastMinReliability || (o.Rentable != nil && !*o.Rentable) || (o.Verified != nil && !*o.Verified) {
			continue
		}
		if o.GPUName == "" || !(o.NumGPUs > 0) || !(o.DPHTotal > 0) {
			dropped++
			continue
		}
		perType[o.GPUName] = append(perType[o.GPUName], o.DPHTotal/o.NumGPUs)
	}
	if dropped > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d offer(s) without a GPU name, a GPU count or a positive price dropped", dropped))
	}
	names := make([]string, 0, len(perType))
	for n := range perType {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prices := perType[n]
		sort.Float64s(prices)
		mid := median(prices)
		kept := prices[:0:0]
		for _, p := range prices {
			if p <= mid*vastOutlierFactor && p >= mid/vastOutlierFactor {
				kept = append(kept, p)
			}
		}
		if out := len(prices) - len(kept); out > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d outlier offer(s) more than %d× from the median $%.3f/GPU-h not counted", n, out, vastOutlierFactor, mid))
		}
		st := &Offers{Count: len(kept), Min: kept[0], Median: median(kept), Max: kept[len(kept)-1]}
		res.Offers = append(res.Offers, offer{SKU: n, USDPerHour: st.Median, Currency: "USD", Region: "all regions", Offers: st})
	}
	return res, nil
}

// median of sorted, non-empty xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
