# frozen_string_literal: true

require 'json'

module DoorkeeperBench
  # GET /__control/requests, GET /__control/stats, GET /__control/tokens, POST /__control/clear and
  # POST /__control/access-token-lifetime (JSON `{"seconds": 2}`). Never logged; the bench listens on
  # the loopback interface only.
  class Control
    def initialize(log)
      @log = log
    end

    def call(env)
      case [env['REQUEST_METHOD'], env['PATH_INFO']]
      when ['GET', '/__control/requests'] then reply(200, requests: @log.requests)
      when ['GET', '/__control/stats'] then reply(200, @log.stats)
      when ['GET', '/__control/tokens'] then reply(200, tokens: @log.exclusively { tokens })
      when ['POST', '/__control/clear']
        @log.clear
        reply(200, {})
      when ['POST', '/__control/access-token-lifetime'] then set_lifetime(env)
      else reply(404, error: 'unknown control')
      end
    end

    private

    # Every pair in the database, as Doorkeeper sees it now.
    def tokens
      ActiveRecord::Base.connection_pool.with_connection do
        Spree::OauthAccessToken.order(:id).map do |token|
          {
            token: token.token,
            refresh_token: token.refresh_token,
            previous_refresh_token: token.previous_refresh_token,
            expires_in: token.expires_in,
            created_at: token.created_at.utc.iso8601(3),
            revoked_at: token.revoked_at&.utc&.iso8601(3),
            expired: token.expired?,
            revoked: token.revoked?,
          }
        end
      end
    end

    def set_lifetime(env)
      seconds = JSON.parse(env['rack.input'].read)['seconds']
      return reply(400, error: 'seconds must be a positive integer') unless seconds.is_a?(Integer) && seconds.positive?

      DoorkeeperBench.access_token_lifetime = seconds
      reply(200, seconds: seconds)
    rescue JSON::ParserError, NoMethodError
      reply(400, error: 'expected JSON {"seconds": N}')
    end

    def reply(status, body)
      [status, { 'Content-Type' => 'application/json', 'Cache-Control' => 'no-store' }, [JSON.generate(body)]]
    end
  end
end
