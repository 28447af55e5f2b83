// Package pricingtest is a fake of the price APIs dossier reads — Azure
// Retail Prices (OData filter, NextPageLink paging), RunPod GraphQL (key in
// the Authorization header, an errors array) and Vast.ai's offer search —
// on one httptest server, speaking their response shapes, with faults
// that can be queued per API.
package pricingtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// AzureItem is one meter of the Retail Prices API, with the fields the
// real API returns.
type AzureItem struct {
	CurrencyCode         string  `json:"currencyCode"`
	TierMinimumUnits     float64 `json:"tierMinimumUnits"`
	RetailPrice          float64 `json:"retailPrice"`
	UnitPrice            float64 `json:"unitPrice"`
	ArmRegionName        string  `json:"armRegionName"`
	Location             string  `json:"location"`
	EffectiveStartDate   string  `json:"effectiveStartDate"`
	MeterID              string  `json:"meterId"`
	MeterName            string  `json:"meterName"`
	ProductID            string  `json:"productId"`
	SkuID                string  `json:"skuId"`
	ProductName          string  `json:"productName"`
	SkuName              string  `json:"skuName"`
	ServiceName          string  `json:"serviceName"`
	ServiceID            string  `json:"serviceId"`
	ServiceFamily        string  `json:"serviceFamily"`
	UnitOfMeasure        string  `json:"unitOfMeasure"`
	Type                 string  `json:"type"`
	IsPrimaryMeterRegion bool    `json:"isPrimaryMeterRegion"`
	ArmSkuName           string  `json:"armSkuName"`
}

// RunPodGPU is one entry of gpuTypes.
type RunPodGPU struct {
	ID             string   `json:"id"`
	DisplayName    string   `json:"displayName"`
	MemoryInGb     float64  `json:"memoryInGb"`
	SecureCloud    bool     `json:"secureCloud"`
	CommunityCloud bool     `json:"communityCloud"`
	SecurePrice    *float64 `json:"securePrice"`
	CommunityPrice *float64 `json:"communityPrice"`
}

// VastOffer is one offer of the bundles search.
type VastOffer struct {
	ID           int64   `json:"id"`
	GPUName      string  `json:"gpu_name"`
	NumGPUs      int     `json:"num_gpus"`
	GPURAM       float64 `json:"gpu_ram"`
	DPHTotal     float64 `json:"dph_total"`
	Reliability2 float64 `json:"reliability2"`
	Rentable     bool    `json:"rentable"`
	Verified     bool    `json:"verified"`
	Geolocation  string  `json:"geolocation"`
}

// Fault is one canned failure answer.
type Fault struct {
	Status     int
	RetryAfter string
	Body       string
}

// API names one of the fake's APIs, for faults and request logs.
type API string

const (
	Azure  API = "azure"
	RunPod API = "runpod"
	Vast   API = "vastai"
)

// Server is the fake. Set its fields before the first request.
type Server struct {
	*httptest.Server
	AzureItems    []AzureItem
	AzurePageSize int // items per page; NextPageLink follows
	// AzureNextHost is the scheme and host NextPageLink points at: the
	// real API's, so the client must move it onto its endpoint.
	AzureNextHost string
	RunPodKey     string // the key the fake expects
	RunPodGPUs    []RunPodGPU
	RunPodErrors  []string // GraphQL errors to return with partial data
	VastOffers    []VastOffer

	mu       sync.Mutex
	faults   map[API][]Fault
	requests map[API][]*http.Request
	bodies   map[API][]string
}

// New starts a fake with no data, closed when the test ends.
func New(tb testing.TB) *Server {
	s := &Server{AzurePageSize: 2, AzureNextHost: "https://prices.azure.com:443", faults: map[API][]Fault{}, requests: map[API][]*http.Request{}, bodies: map[API][]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// Endpoint is the base URL to set as DOSSIER_PRICING_<API>_ENDPOINT.
func (s *Server) Endpoint(api API) string {
	switch api {
	case Azure:
		return s.URL + "/api/retail/prices"
	case RunPod:
		return s.URL + "/graphql"
	}
	return s.URL + "/api/v0/bundles/"
}

// Fail queues faults answered, in order, before the API answers normally.
func (s *Server) Fail(api API, f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[api] = append(s.faults[api], f...)
}

// Requests returns the requests an API received.
func (s *Server) Requests(api API) []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests[api]...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var api API
	switch {
	case r.URL.Path == "/api/retail/prices":
		api = Azure
	case r.URL.Path == "/graphql":
		api = RunPod
	case r.URL.Path == "/api/v0/bundles/":
		api = Vast
	default:
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests[api] = append(s.requests[api], r)
	s.bodies[api] = append(s.bodies[api], string(body))
	var fault *Fault
	if q := s.faults[api]; len(q) > 0 {
		fault, s.faults[api] = &q[0], q[1:]
	}
	s.mu.Unlock()
	if fault != nil {
		if fault.RetryAfter != "" {
			w.Header().Set("Retry-After", fault.RetryAfter)
		}
		w.WriteHeader(fault.Status)
		io.WriteString(w, fault.Body)
		return
	}
	switch api {
	case Azure:
		s.azure(w, r)
	case RunPod:
		s.runpod(w, r, body)
	case Vast:
		s.vast(w, r)
	}
}

var (
	skuEqRe    = regexp.MustCompile(`armSkuName eq '([^']*)'`)
	regionEqRe = regexp.MustCompile(`armRegionName eq '([^']*)'`)
)

// azure answers like the Retail Prices API: the $filter's serviceName,
// region and armSkuName terms are applied, 'Consumption' price type kept,
// pages of AzurePageSize items chained by an absolute NextPageLink.
func (s *Server) azure(w http.ResponseWriter, r *http.Request) {
	filter := r.URL.Query().Get("$filter")
	if !strings.Contains(filter, "serviceName eq 'Virtual Machines'") {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"Error": map[string]string{"Code": "BadRequest", "Message": "Invalid OData parameters supplied"}})
		return
	}
	skus := map[string]bool{}
	for _, m := range skuEqRe.FindAllStringSubmatch(filter, -1) {
		skus[m[1]] = true
	}
	region := ""
	if m := regionEqRe.FindStringSubmatch(filter); m != nil {
		region = m[1]
	}
	var match []AzureItem
	for _, it := range s.AzureItems {
		if (len(skus) == 0 || skus[it.ArmSkuName]) && (region == "" || it.ArmRegionName == region) {
			match = append(match, it)
		}
	}
	skip, _ := strconv.Atoi(r.URL.Query().Get("$skip"))
	end := min(skip+s.AzurePageSize, len(match))
	if skip > len(match) {
		skip = len(match)
	}
	page := map[string]any{"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
		"Items": append([]AzureItem{}, match[skip:end]...), "Count": end - skip, "NextPageLink": nil}
	if end < len(match) {
		q := url.Values{}
		q.Set("$filter", filter)
		q.Set("$skip", strconv.Itoa(end))
		page["NextPageLink"] = s.AzureNextHost + "/api/retail/prices?" + q.Encode()
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(page)
}

// runpod answers like RunPod's GraphQL API: 401 without the key, a
// GraphQL error for a query without gpuTypes, else data with the errors
// array when RunPodErrors is set.
func (s *Server) runpod(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.RunPodKey {
		w.WriteHeader(http.StatusUnauthorized)
		// Echo what was sent, as some servers do: the client must not
		// repeat it.
		fmt.Fprintf(w, `{"errors":[{"message":"invalid api key: %s"}]}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		return
	}
	var req struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(body, &req); err != nil || !strings.Contains(req.Query, "gpuTypes") {
		fmt.Fprint(w, `{"errors":[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":1,"column":1}]}]}`)
		return
	}
	ans := map[string]any{"data": map[string]any{"gpuTypes": s.RunPodGPUs}}
	if len(s.RunPodErrors) > 0 {
		var errs []map[string]any
		for _, m := range s.RunPodErrors {
			errs = append(errs, map[string]any{"message": m, "path": []any{"gpuTypes", 0, "securePrice"}})
		}
		ans["errors"] = errs
	}
	json.NewEncoder(w).Encode(ans)
}

// vast answers like the bundles search: {"offers": [...]}, every offer
// returned whatever q says (the client must filter too).
func (s *Server) vast(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if q := r.URL.Query().Get("q"); q != "" {
		var v map[string]any
		if json.Unmarshal([]byte(q), &v) != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"success":false,"error":"invalid_args","msg":"q is not JSON"}`)
			return
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"offers": s.VastOffers})
}

// Price is a helper for RunPodGPU's nullable prices.
func Price(v float64) *float64 { return &v }

// AzureVM returns a Linux on-demand meter for armSku in region, in the
// real API's naming (Windows and Spot variants are built from it).
func AzureVM(armSku, region string, price float64) AzureItem {
	short := strings.ReplaceAll(strings.TrimPrefix(armSku, "Standard_"), "_", " ")
	return AzureItem{
		CurrencyCode: "USD", RetailPrice: price, UnitPrice: price, ArmRegionName: region, Location: region,
		EffectiveStartDate: "2024-01-01T00:00:00Z", MeterID: "meter-" + armSku + "-" + region, MeterName: short,
		ProductID: "DZH318Z0" + strconv.Itoa(len(armSku)), SkuID: "DZH318Z0/" + strconv.Itoa(len(short)),
		ProductName: "Virtual Machines " + short + " Series", SkuName: short, ServiceName: "Virtual Machines",
		ServiceID: "DZH313Z7MMC8", ServiceFamily: "Compute", UnitOfMeasure: "1 Hour", Type: "Consumption",
		IsPrimaryMeterRegion: true, ArmSkuName: armSku,
	}
}

// Windows is the same VM's Windows meter.
func Windows(it AzureItem, price float64) AzureItem {
	it.ProductName += " Windows"
	it.RetailPrice, it.UnitPrice = price, price
	return it
}

// Spot is the same VM's Spot meter ("Low Priority" with kind "Low Priority").
func Spot(it AzureItem, kind string, price float64) AzureItem {
	it.MeterName += " " + kind
	it.SkuName += " " + kind
	it.RetailPrice, it.UnitPrice = price, price
	return it
}
