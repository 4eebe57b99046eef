/**
 * The sandbox seller's fixed inventory: products (interface spec 2.5), creative formats and
 * signal segments. Format ids point at this seller (`agent_url` = its base URL).
 */

export interface PricingOption {
  pricing_option_id: string;
  /** The sandbox's own options are CPM in USD; a seeded one (digest 4.6 seed_pricing_option) may be another. */
  pricing_model: string;
  currency: string;
  fixed_price: number;
}

export interface Product {
  product_id: string;
  name: string;
  description: string;
  channels: string[];
  pricing_options: PricingOption[];
  delivery_type: 'guaranteed' | 'non_guaranteed';
  /** `impressions` as interface spec 2.5 shows it; `points`, `method`, `currency` as the released 3.0 schema requires. */
  forecast: {
    impressions: { min: number; max: number };
    points: { metrics: { impressions: { low: number; high: number } } }[];
    method: 'estimate';
    currency: 'USD';
  };
  /** Absent on a seeded product declaring only `format_options` (line 3.1+). */
  format_ids?: { agent_url: string; id: string }[];
  /** Line 3.1+ canonical format declarations, as a seed gave them (format-selectors.ts judges create_media_buy against them). */
  format_options?: Record<string, unknown>[];
  /** Released 3.0 members: the publisher inventory the product covers, and its reporting. */
  publisher_properties: { publisher_domain: string; selection_type: 'all' }[];
  reporting_capabilities: typeof REPORTING;
  sandbox: true;
  /** Buyable by its id but never listed by get_products (an out-of-band fixture). */
  unlisted?: true;
}

/** What every sandbox product reports: daily, pull or webhook, the metrics get_media_buy_delivery returns. */
export const REPORTING = {
  available_reporting_frequencies: ['daily'],
  expected_delay_minutes: 0,
  timezone: 'UTC',
  supports_webhooks: true,
  available_metrics: ['impressions', 'clicks', 'spend', 'completion_rate'],
  date_range_support: 'date_range',
};

export const SANDBOX_PUBLISHER = 'sandbox-publisher.example';

export function forecastOf(min: number, max: number): Product['forecast'] {
  return { impressions: { min, max }, points: [{ metrics: { impressions: { low: min, high: max } } }], method: 'estimate', currency: 'USD' };
}

export interface CreativeFormat {
  format_id: { agent_url: string; id: string };
  name: string;
  type: 'video' | 'display' | 'audio' | 'native';
  dimensions?: { width: number; height: number };
  duration_ms?: { min: number; max: number };
  file_types: string[];
  max_file_size_kb: number;
}

export interface SignalSegment {
  signal_agent_segment_id: string;
  name: string;
  description: string;
  signal_type: 'marketplace' | 'owned';
  data_provider: string;
  coverage_percentage: number;
  pricing: { cpm: number; currency: 'USD' };
  keywords: string[];
}

export interface Catalog {
  agentUrl: string;
  products: Product[];
  formats: CreativeFormat[];
  signals: SignalSegment[];
  product(id: string): Product | undefined;
  format(id: string): CreativeFormat | undefined;
  signal(id: string): SignalSegment | undefined;
}

export function buildCatalog(agentUrl: string): Catalog {
  const fid = (id: string) => ({ agent_url: agentUrl, id });
  const cpm = (id: string, price: number): PricingOption => ({
    pricing_option_id: id,
    pricing_model: 'cpm',
    currency: 'USD',
    fixed_price: price,
  });
  const products: Product[] = [
    {
      product_id: 'ctv_sports_premium',
      name: 'Premium CTV - Live Sports',
      description: 'Guaranteed connected-TV inventory around live sports broadcasts.',
      channels: ['ctv'],
      pricing_options: [cpm('ctv_sports_cpm_usd', 42.5)],
      delivery_type: 'guaranteed',
      forecast: forecastOf(400_000, 650_000),
      format_ids: [fid('video_30s'), fid('video_15s')],
      publisher_properties: [{ publisher_domain: SANDBOX_PUBLISHER, selection_type: 'all' }],
      reporting_capabilities: structuredClone(REPORTING),
      sandbox: true,
    },
    {
      product_id: 'olv_news_preroll',
      name: 'Online Video - News Pre-roll',
      description: 'Pre-roll video on news sites, auction-priced with a fixed sandbox CPM.',
      channels: ['olv'],
      pricing_options: [cpm('olv_news_cpm_usd', 18)],
      delivery_type: 'non_guaranteed',
      forecast: forecastOf(1_000_000, 2_500_000),
      format_ids: [fid('video_15s'), fid('video_30s')],
      publisher_properties: [{ publisher_domain: SANDBOX_PUBLISHER, selection_type: 'all' }],
      reporting_capabilities: structuredClone(REPORTING),
      sandbox: true,
    },
    {
      product_id: 'display_homepage_takeover',
      name: 'Display - Homepage Takeover',
      description: 'Homepage roadblock with billboard and medium rectangle units.',
      channels: ['display'],
      pricing_options: [cpm('display_takeover_cpm_usd', 12.75)],
      delivery_type: 'guaranteed',
      forecast: forecastOf(250_000, 300_000),
      format_ids: [fid('display_970x250'), fid('display_300x250')],
      publisher_properties: [{ publisher_domain: SANDBOX_PUBLISHER, selection_type: 'all' }],
      reporting_capabilities: structuredClone(REPORTING),
      sandbox: true,
    },
    {
      product_id: 'audio_podcast_midroll',
      name: 'Audio - Podcast Mid-roll',
      description: 'Host-read style mid-roll slots across a podcast network.',
      channels: ['audio'],
      pricing_options: [cpm('audio_midroll_cpm_usd', 22)],
      delivery_type: 'non_guaranteed',
      forecast: forecastOf(150_000, 400_000),
      format_ids: [fid('audio_30s')],
      publisher_properties: [{ publisher_domain: SANDBOX_PUBLISHER, selection_type: 'all' }],
      reporting_capabilities: structuredClone(REPORTING),
      sandbox: true,
    },
    {
      // The literal ids 3.x storyboards send without seeding them (storyboard-schema: "pre-seed matching IDs out of band");
      // `default` is the pricing option the @adcp/sdk runner substitutes when it has not discovered the product.
      product_id: 'test-product',
      name: 'Test Product',
      description: 'The out-of-band fixture the published storyboards buy by its literal id (test-product, test-pricing).',
      channels: ['display'],
      pricing_options: [cpm('test-pricing', 10), cpm('default', 10)],
      delivery_type: 'non_guaranteed',
      forecast: forecastOf(500_000, 1_000_000),
      format_ids: [fid('display_300x250')],
      publisher_properties: [{ publisher_domain: SANDBOX_PUBLISHER, selection_type: 'all' }],
      reporting_capabilities: structuredClone(REPORTING),
      sandbox: true,
      unlisted: true,
    },
  ];
  const formats: CreativeFormat[] = [
    {
      format_id: fid('video_30s'),
      name: 'Video 30s',
      type: 'video',
      dimensions: { width: 1920, height: 1080 },
      duration_ms: { min: 29_000, max: 30_000 },
      file_types: ['mp4'],
      max_file_size_kb: 512_000,
    },
    {
      format_id: fid('video_15s'),
      name: 'Video 15s',
      type: 'video',
      dimensions: { width: 1920, height: 1080 },
      duration_ms: { min: 14_000, max: 15_000 },
      file_types: ['mp4'],
      max_file_size_kb: 256_000,
    },
    {
      format_id: fid('display_300x250'),
      name: 'Medium Rectangle',
      type: 'display',
      dimensions: { width: 300, height: 250 },
      file_types: ['png', 'jpg', 'gif'],
      max_file_size_kb: 150,
    },
    {
      format_id: fid('display_970x250'),
      name: 'Billboard',
      type: 'display',
      dimensions: { width: 970, height: 250 },
      file_types: ['png', 'jpg'],
      max_file_size_kb: 250,
    },
    { format_id: fid('audio_30s'), name: 'Audio 30s', type: 'audio', duration_ms: { min: 29_000, max: 30_000 }, file_types: ['mp3'], max_file_size_kb: 5_000 },
    // Native formats the published creative storyboards push by their literal ids.
    { format_id: fid('native_post'), name: 'Native post', type: 'native', file_types: ['jpg', 'png'], max_file_size_kb: 500 },
    { format_id: fid('native_content'), name: 'Native content', type: 'native', file_types: ['jpg', 'png'], max_file_size_kb: 500 },
  ];
  const signals: SignalSegment[] = [
    {
      signal_agent_segment_id: 'seg_sports_enthusiasts',
      name: 'Sports enthusiasts',
      description: 'Households with frequent live-sports viewing.',
      signal_type: 'marketplace',
      data_provider: 'Sandbox Data Co',
      coverage_percentage: 18.5,
      pricing: { cpm: 2.5, currency: 'USD' },
      keywords: ['sport', 'sports', 'fan', 'ctv'],
    },
    {
      signal_agent_segment_id: 'seg_new_parents',
      name: 'New parents',
      description: 'Adults in households with a child under two.',
      signal_type: 'marketplace',
      data_provider: 'Sandbox Data Co',
      coverage_percentage: 4.2,
      pricing: { cpm: 3.75, currency: 'USD' },
      keywords: ['parent', 'baby', 'family'],
    },
    {
      signal_agent_segment_id: 'seg_eco_shoppers',
      name: 'Eco-conscious shoppers',
      description: 'Shoppers buying sustainable household products.',
      signal_type: 'owned',
      data_provider: 'Sandbox Seller',
      coverage_percentage: 9.8,
      pricing: { cpm: 1.8, currency: 'USD' },
      keywords: ['eco', 'green', 'sustainable', 'organic'],
    },
  ];
  return {
    agentUrl,
    products,
    formats,
    signals,
    product: (id) => products.find((p) => p.product_id === id),
    format: (id) => formats.find((f) => f.format_id.id === id),
    signal: (id) => signals.find((s) => s.signal_agent_segment_id === id),
  };
}
