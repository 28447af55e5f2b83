// Package config turns hugo-like.yaml, DOSSIER_* environment variables and
// command-line flags into one typed Site value. It is the only package that
// talks to viper, and it always uses its own viper instance.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"dossier/generator/internal/checked"
	"dossier/generator/internal/safefile"
	"dossier/generator/yamlx"
)

// FileName is the site configuration at the root of a site.
const FileName = "hugo-like.yaml"

// Site is the typed configuration of one site.
type Site struct {
	Title        string `mapstructure:"title"`
	BaseURL      string `mapstructure:"baseurl"`
	ContentDir   string `mapstructure:"contentdir"`
	DataDir      string `mapstructure:"datadir"`
	TemplatesDir string `mapstructure:"templatesdir"`
	PublishDir   string `mapstructure:"publishdir"`
	// Author is who publishes the reviews (the ClaimReview author).
	Author    string    `mapstructure:"author"`
	Sizing    Sizing    `mapstructure:"sizing"`
	Hardware  []string  `mapstructure:"hardware"` // configurations such as "8xB200"
	Freshness Freshness `mapstructure:"freshness"`
	// Publisher is who publishes and funds the site, for the methodology
	// page and the ClaimReview author.
	Publisher Publisher `mapstructure:"publisher"`
	WatchOrgs []string  `mapstructure:"watchorgs"`
	// Search runs Pagefind over the built site; SearchCommand is how.
	Search        bool   `mapstructure:"search"`
	SearchCommand string `mapstructure:"searchcommand"`

	// Root is the absolute site root (the directory holding hugo-like.yaml);
	// the *Dir fields are resolved against it.
	Root string `mapstructure:"-"`
	// File is the configuration file that was read.
	File string `mapstructure:"-"`
	// origins says which keys a flag or an environment variable set.
	origins map[string]string
}

// Sizing holds the assumptions every sizing figure states.
type Sizing struct {
	KVDTypeBytes         int64   `mapstructure:"kvdtypebytes"`
	StateDTypeBytes      int64   `mapstructure:"statedtypebytes"`
	Contexts             []int64 `mapstructure:"contexts"`
	ServingContext       int64   `mapstructure:"servingcontext"`
	Concurrency          int64   `mapstructure:"concurrency"`
	GPUMemoryUtilization float64 `mapstructure:"gpumemoryutilization"`
	ReservePerGPUBytes   int64   `mapstructure:"reservepergpubytes"`
	TensorParallelSizes  []int64 `mapstructure:"tensorparallelsizes"`
	DownloadBytesPerSec  float64 `mapstructure:"downloadbytespersecond"`
	DownloadSource       string  `mapstructure:"downloadsource"`
	WaitWindowSeconds    float64 `mapstructure:"waitwindowseconds"`
	Speed                Speed   `mapstructure:"speed"`
}

// Speed holds the efficiency factors and prompt length the speed
// predictions state: a share of peak each part of the hardware reaches.
type Speed struct {
	MemoryEfficiency       float64 `mapstructure:"memoryefficiency"`       // share of HBM bandwidth decode reaches
	ComputeEfficiency      float64 `mapstructure:"computeefficiency"`      // share of dense peak FLOP/s (MFU)
	InterconnectEfficiency float64 `mapstructure:"interconnectefficiency"` // share of NVLink/xGMI/PCIe bandwidth collectives reach
	PromptTokens           int64   `mapstructure:"prompttokens"`           // prompt length of the prefill figure and context of the decode figure
	Source                 string  `mapstructure:"source"`                 // where the defaults come from
	// DiskBytesPerSecond is the read rate of the disk a streaming runtime
	// (AirLLM-style) pulls layers from; DiskSource says where it comes from.
	DiskBytesPerSecond float64 `mapstructure:"diskbytespersecond"`
	DiskSource         string  `mapstructure:"disksource"`
}

// Publisher says who stands behind the reviews: what the methodology page
// prints and ClaimReview names. An empty field is printed as not stated,
// never filled in.
type Publisher struct {
	Name        string `mapstructure:"name"`        // the organisation; empty: author
	URL         string `mapstructure:"url"`         // its page
	Funding     string `mapstructure:"funding"`     // who pays for the site, and what it is paid by
	Reviewer    string `mapstructure:"reviewer"`    // the named person who reviews claims, unless a page names its own
	Corrections string `mapstructure:"corrections"` // where a reader or a vendor asks for a correction (an address or URL)
}

// Organisation is the publisher's name, else the author.
func (s *Site) Organisation() string {
	if s.Publisher.Name != "" {
		return s.Publisher.Name
	}
	return s.Author
}

// Freshness limits how old a data source may be before `dossier check`
// reports it.
type Freshness struct {
	MaxAgeDays int    `mapstructure:"maxagedays"`
	Today      string `mapstructure:"today"` // pin "today" for reproducible checks; empty means the clock
}

func setDefaults(v *viper.Viper) {
	v.SetDefault("title", "dossier")
	v.SetDefault("baseurl", "/")
	v.SetDefault("contentdir", "content")
	v.SetDefault("datadir", "data")
	v.SetDefault("templatesdir", "templates")
	v.SetDefault("publishdir", "public")
	v.SetDefault("author", "dossier")
	v.SetDefault("sizing.kvdtypebytes", 2)
	v.SetDefault("sizing.statedtypebytes", 4)
	v.SetDefault("sizing.contexts", []int64{8192, 131072, 1048576})
	v.SetDefault("sizing.servingcontext", 131072)
	v.SetDefault("sizing.concurrency", 1)
	v.SetDefault("sizing.gpumemoryutilization", 0.90)
	// 2 GiB per GPU beyond the 0.90 for activations and CUDA graphs, as the
	// shipped site states it: plan outside a site judges a GPU as a build does.
	v.SetDefault("sizing.reservepergpubytes", 2147483648)
	v.SetDefault("sizing.tensorparallelsizes", []int64{1, 2, 4, 8})
	v.SetDefault("sizing.downloadbytespersecond", 126.3e6)
	v.SetDefault("sizing.downloadsource", "")
	v.SetDefault("sizing.waitwindowseconds", 1800)
	v.SetDefault("sizing.speed.memoryefficiency", 0.6)
	v.SetDefault("sizing.speed.computeefficiency", 0.5)
	v.SetDefault("sizing.speed.interconnectefficiency", 0.8)
	v.SetDefault("sizing.speed.prompttokens", 8192)
	v.SetDefault("sizing.speed.source", "")
	v.SetDefault("sizing.speed.diskbytespersecond", 7.45e9)
	v.SetDefault("sizing.speed.disksource", "Samsung 990 PRO (PCIe 4.0 NVMe) sequential read, up to 7,450 MB/s: https://www.samsung.com/semiconductor/minisite/ssd/product/consumer/990pro/")
	v.SetDefault("hardware", []string{})
	v.SetDefault("freshness.maxagedays", 0)
	v.SetDefault("freshness.today", "")
	v.SetDefault("watchorgs", []string{})
	v.SetDefault("publisher.name", "")
	v.SetDefault("publisher.url", "")
	v.SetDefault("publisher.funding", "")
	v.SetDefault("publisher.reviewer", "")
	v.SetDefault("publisher.corrections", "")
	v.SetDefault("search", false)
	v.SetDefault("searchcommand", "npx --yes pagefind@1.6.0")
}

// Load reads the site at root. Flags that are set override the
// environment, which overrides the file, which overrides the defaults.
// flagKeys maps a flag name to the config key it sets.
func Load(root string, flags *pflag.FlagSet, flagKeys map[string]string) (*Site, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("site root %s: %w", root, err)
	}
	file := filepath.Join(abs, FileName)
	v := viper.New()
	setDefaults(v)
	b, err := safefile.Read(file, abs, safefile.Site)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no site configuration here (use --source to point at a site root)", file)
	}
	if err != nil {
		return nil, err
	}
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
		return nil, fmt.Errorf("%s: %s", file, yamlx.Locate(b, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "While parsing config: "), "yaml: ")))
	}
	if err := checkKnownKeys(v, file); err != nil {
		return nil, err
	}
	return finish(v, abs, file, flags, flagKeys)
}

// BuiltinName stands for the configuration file in errors and sources when
// there is no site: the defaults, DOSSIER_* variables and flags.
const BuiltinName = "built-in settings"

// Builtin is the configuration without a site: the defaults overridden by
// DOSSIER_* variables and flags, as Load applies them. Root and File are
// empty; dossier plan uses it outside a site.
func Builtin(flags *pflag.FlagSet, flagKeys map[string]string) (*Site, error) {
	v := viper.New()
	setDefaults(v)
	s, err := finish(v, "", BuiltinName, flags, flagKeys)
	if err != nil {
		return nil, err
	}
	s.File = "" // errors named BuiltinName; there is no file
	return s, nil
}

// finish applies the environment and flags over v and decodes and
// validates the result; root is the site root ("" without a site), whose
// input directories validation keeps the output out of; file names the
// source in errors.
func finish(v *viper.Viper, root, file string, flags *pflag.FlagSet, flagKeys map[string]string) (*Site, error) {
	if err := checkEnviron(os.Environ()); err != nil {
		return nil, err
	}
	v.SetEnvPrefix("DOSSIER")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	for name, key := range flagKeys {
		if f := flags.Lookup(name); f != nil {
			if err := v.BindPFlag(key, f); err != nil {
				return nil, fmt.Errorf("bind flag --%s: %w", name, err)
			}
		}
	}
	origin := origins(flags, flagKeys)
	if err := checkEnvValues(origin); err != nil {
		return nil, err
	}
	var s Site
	s.Root, s.File, s.origins = root, file, origin
	if err := v.Unmarshal(&s, strictNumbers); err != nil {
		if fe := typeFieldError(err); fe != nil {
			return nil, s.blame(fe)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s.Root, s.File, s.origins = root, file, origin
	if err := s.validate(); err != nil {
		return nil, s.blame(err)
	}
	return &s, nil
}

var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	v := viper.New()
	setDefaults(v)
	for _, k := range v.AllKeys() {
		m[k] = true
	}
	return m
}()

// checkKnownKeys rejects keys in the file that nothing reads: a typo
// would otherwise silently fall back to a default.
func checkKnownKeys(v *viper.Viper, file string) error {
	var unknown []string
	for _, k := range v.AllKeys() {
		if !knownKeys[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%s: unknown key %q", file, unknown[0])
	}
	return nil
}

var hwRe = regexp.MustCompile(`^([1-9][0-9]*)x([A-Za-z0-9][A-Za-z0-9_.-]*)$`)

// ParseHardware splits a configuration such as "8xB200" into a GPU count
// and an accelerator id; a count above checked.MaxGPUs is not a
// configuration.
func ParseHardware(s string) (int, string, bool) {
	m := hwRe.FindStringSubmatch(s)
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n > checked.MaxGPUs {
		return 0, "", false
	}
	return n, m[2], true
}

// maxBytesPerSecond bounds a download or disk read rate: 1 TB/s is past
// any link or drive, and a rate below 1 B/s makes every time infinite.
const maxBytesPerSecond = 1e12

func (s *Site) validate() error {
	bad := func(key, format string, a ...any) error {
		return &FieldError{Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	z := &s.Sizing
	ints := []struct {
		key, unit string
		v, lo, hi int64
	}{
		{"sizing.kvDtypeBytes", "bytes", z.KVDTypeBytes, 1, checked.MaxDTypeBytes},
		{"sizing.stateDtypeBytes", "bytes", z.StateDTypeBytes, 1, checked.MaxDTypeBytes},
		{"sizing.reservePerGpuBytes", "bytes", z.ReservePerGPUBytes, 0, checked.MaxBytesPerGPU},
		{"sizing.concurrency", "sequences", z.Concurrency, 1, checked.MaxConcurrency},
		{"sizing.servingContext", "tokens", z.ServingContext, 1, checked.MaxContext},
		{"freshness.maxAgeDays", "days (0: no limit)", int64(s.Freshness.MaxAgeDays), 0, 36500},
	}
	for _, n := range ints {
		if n.v < n.lo || n.v > n.hi {
			return bad(n.key, "%s", checked.Range(n.lo, n.hi, n.unit, n.v))
		}
	}
	// Written as !(in range) so that NaN is rejected too.
	if u := z.GPUMemoryUtilization; !(u > 0 && u <= 1) {
		return bad("sizing.gpuMemoryUtilization", "expected a fraction in (0, 1], found %v", u)
	}
	for key, e := range map[string]float64{"sizing.speed.memoryEfficiency": z.Speed.MemoryEfficiency, "sizing.speed.computeEfficiency": z.Speed.ComputeEfficiency, "sizing.speed.interconnectEfficiency": z.Speed.InterconnectEfficiency} {
		if !(e > 0 && e <= 1) {
			return bad(key, "expected a fraction in (0, 1], found %v", e)
		}
	}
	if r := z.Speed.DiskBytesPerSecond; !(r >= 1 && r <= maxBytesPerSecond) {
		return bad("sizing.speed.diskBytesPerSecond", "%s", checked.Range(1, maxBytesPerSecond, "bytes per second", r))
	}
	if n := z.Speed.PromptTokens; n <= 0 || n > 1<<30 {
		return bad("sizing.speed.promptTokens", "expected a token count in 1..2^30, found %d", n)
	}
	if len(z.Contexts) == 0 {
		return bad("sizing.contexts", "expected at least one context in tokens")
	}
	for i, c := range z.Contexts {
		if c < 1 || c > checked.MaxContext {
			return bad(fmt.Sprintf("sizing.contexts[%d]", i), "%s", checked.Range(1, int64(checked.MaxContext), "tokens", c))
		}
	}
	if len(z.TensorParallelSizes) == 0 {
		return bad("sizing.tensorParallelSizes", "expected at least one size")
	}
	for i, n := range z.TensorParallelSizes {
		if n < 1 || n > checked.MaxGPUs {
			return bad(fmt.Sprintf("sizing.tensorParallelSizes[%d]", i), "%s", checked.Range(1, checked.MaxGPUs, "GPUs", n))
		}
	}
	if r := z.DownloadBytesPerSec; !(r >= 1 && r <= maxBytesPerSecond) {
		return bad("sizing.downloadBytesPerSecond", "%s", checked.Range(1, maxBytesPerSecond, "bytes per second", r))
	}
	if w := z.WaitWindowSeconds; !(w >= 0 && w <= 1e9) {
		return bad("sizing.waitWindowSeconds", "expected from 0 to 1e9 seconds, found %v", w)
	}
	if d := s.Freshness.Today; d != "" {
		if _, ok := checked.Date(d); !ok {
			return bad("freshness.today", "expected a calendar date YYYY-MM-DD (or empty for the clock), found %q", d)
		}
	}
	if u := s.Publisher.URL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return bad("publisher.url", "expected an http(s) address, found %q", u)
	}
	for i, h := range s.Hardware {
		if _, _, ok := ParseHardware(h); !ok {
			return bad(fmt.Sprintf("hardware[%d]", i), "expected COUNTxACCELERATOR such as 8xB200 with COUNT from 1 to %d, found %q", checked.MaxGPUs, h)
		}
	}
	for _, d := range []struct{ key, dir string }{{"contentDir", s.ContentDir}, {"dataDir", s.DataDir}, {"templatesDir", s.TemplatesDir}, {"publishDir", s.PublishDir}} {
		if d.dir == "" {
			return bad(d.key, "empty")
		}
	}
	return s.validateDirs()
}

// Dir resolves one of the configured directories against the site root.
func (s *Site) Dir(d string) string {
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(s.Root, d)
}
