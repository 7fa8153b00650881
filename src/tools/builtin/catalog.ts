/**
 * Providers seen in real Dify files that need a service outside this machine. The text says what to
 * configure, so `tool.not_configured` errors tell the user what is missing rather than just "unknown".
 */
export const EXTERNAL_PROVIDERS: Record<string, string> = {
  tavily: "the Tavily web-search API (an API key)",
  google: "a Google search API (SerpAPI key)",
  duckduckgo: "internet access to DuckDuckGo",
  bing: "the Bing web-search API (a subscription key)",
  searxng: "a SearXNG server URL",
  serper: "the Serper API (an API key)",
  jina: "the Jina Reader/Search API (internet access, optionally an API key)",
  webscraper: "internet access to fetch the page",
  firecrawl: "the Firecrawl API (an API key)",
  wikipedia: "internet access to Wikipedia",
  arxiv: "internet access to arXiv",
  audio: "a speech model provider (TTS/ASR)",
  edgetts: "Microsoft Edge's online TTS service",
  dalle: "the OpenAI image API (an API key)",
  stability: "the Stability AI API (an API key)",
  modelscope: "the ModelScope inference API (an API key)",
  doubao: "the Volcengine Doubao image API (an API key)",
  nano_banana: "a Gemini image API key",
  nano_banana2: "a Gemini image API key",
  sora2: "a video generation API key",
  mineru: "a MinerU document-parsing server",
  pdf2markdown: "the TextIn API (an API key)",
  feishu_spreadsheet: "a Feishu app (app id and secret)",
  wecom: "a WeCom group-bot webhook key",
  "163-smtp-send-mail": "an SMTP account",
  google_translate: "internet access to Google Translate",
  baidu_ai_search: "the Baidu Qianfan API (an API key)",
  rookie_rss: "internet access to fetch RSS feeds",
  database: "a database connection URL",
  ffmpeg: "an ffmpeg service",
  ppt: "a presentation generation service",
  small_pay: "a payment provider account",
};

/** API tools and workflow tools are tenant-specific (their provider id is a uuid): never portable. */
export function describeProviderType(providerType: string | undefined): string | undefined {
  switch (providerType) {
    case "api":
      return "an API tool defined in the source Dify workspace (its OpenAPI schema and credentials)";
    case "workflow":
      return "a workflow published as a tool in the source Dify workspace";
    case "mcp":
      return "an MCP server";
    case "app":
      return "an app of the source Dify workspace";
    default:
      return undefined;
  }
}
