# frozen_string_literal: true

module DoorkeeperBench
  # The whole server as one Rack app: the API and OAuth paths go to Rails (through the request log),
  # /__control/ to the test controls, everything else to static files, so the test pages, the
  # built worker and the vendor scripts come from the API's own origin, as on a shop.
  class Site
    API_PREFIXES = %w[/api/ /spree_oauth/].freeze

    attr_reader :log

    # mounts: URL prefix (no trailing slash, '' for the root) => directory.
    def initialize(rails, mounts)
      @log = RequestLog.new(rails)
      @control = Control.new(@log)
      @files = Rack::URLMap.new(mounts.to_h { |prefix, dir| [prefix.empty? ? '/' : prefix, Rack::Files.new(dir)] })
    end

    def call(env)
      path = env['PATH_INFO'].to_s
      return @control.call(env) if path.start_with?('/__control/')
      return @log.call(env) if path.start_with?(*API_PREFIXES)

      @files.call(env)
    end
  end
end
