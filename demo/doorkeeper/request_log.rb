# frozen_string_literal: true

require 'json'

module DoorkeeperBench
  # Wraps the Rails application: runs one request at a time and records each (method, path, query,
  # the credential headers, the body of writes, the status and, for the token path, the answer) with
  # counters for the tests. Tests only: the log holds token values.
  #
  # One at a time because ruby-sqlite3 1.4 waits on a busy database inside C, holding Ruby's global
  # lock, so two threads writing at once stall until the busy timeout. Doorkeeper's own logic is
  # unchanged by it; a real shop runs on a database with row locks.
  class RequestLog
    TOKEN_PATH = '/spree_oauth/token'
    REVOKE_PATH = '/spree_oauth/revoke'
    STAT_NAMES = %i[
      tokenRequests passwordGrants refreshGrants refreshSuccesses invalidGrants
      revocations unauthorized notModified
    ].freeze

    def initialize(app)
      @app = app
      @app_lock = Mutex.new
      @log_lock = Mutex.new
      clear
    end

    def call(env)
      request = Rack::Request.new(env)
      entry = {
        method: request.request_method,
        path: request.path_info,
        search: request.query_string.empty? ? '' : "?#{request.query_string}",
        headers: {
          authorization: env['HTTP_AUTHORIZATION'],
          orderToken: env['HTTP_X_SPREE_ORDER_TOKEN'],
          contentType: env['CONTENT_TYPE'],
          origin: env['HTTP_ORIGIN'],
          ifNoneMatch: env['HTTP_IF_NONE_MATCH'],
        }.compact,
        at: now_ms,
      }
      entry[:body] = read_body(request) if %w[POST PATCH PUT].include?(entry[:method])
      @log_lock.synchronize { @requests << entry }

      status, headers, chunks = @app_lock.synchronize { buffered(env) }
      text = chunks.join
      entry[:status] = status
      entry[:response] = parse_json(text) if entry[:path] == TOKEN_PATH
      count(entry, status, text)
      [status, headers, chunks]
    end

    # Runs a block (a control request reading the database) between two requests of the app.
    def exclusively(&block)
      @app_lock.synchronize(&block)
    end

    def requests
      @log_lock.synchronize { @requests.map(&:dup) }
    end

    def stats
      @log_lock.synchronize { @stats.merge(requests: @requests.size) }
    end

    def clear
      @log_lock.synchronize do
        @requests = []
        @stats = STAT_NAMES.to_h { |name| [name, 0] }
      end
    end

    private

    def buffered(env)
      status, headers, body = @app.call(env)
      chunks = []
      body.each { |chunk| chunks << chunk }
      [status, headers, chunks]
    ensure
      body.close if body.respond_to?(:close)
    end

    def read_body(request)
      input = request.body
      return nil unless input

      text = input.read
      input.rewind
      text
    end

    def count(entry, status, text)
      method = entry[:method]
      path = entry[:path]
      @log_lock.synchronize do
        @stats[:notModified] += 1 if status == 304
        @stats[:unauthorized] += 1 if status == 401 && path.start_with?('/api/')
        if method == 'POST' && path == REVOKE_PATH
          @stats[:revocations] += 1
        elsif method == 'POST' && path == TOKEN_PATH
          @stats[:tokenRequests] += 1
          grant = form_or_json(entry[:body], entry[:headers][:contentType])['grant_type']
          @stats[:passwordGrants] += 1 if grant == 'password'
          @stats[:refreshGrants] += 1 if grant == 'refresh_token'
          @stats[:refreshSuccesses] += 1 if grant == 'refresh_token' && status == 200
          @stats[:invalidGrants] += 1 if status == 400 && parse_json(text).is_a?(Hash) && parse_json(text)['error'] == 'invalid_grant'
        end
      end
    end

    def form_or_json(body, content_type)
      return {} if body.nil? || body.empty?

      parsed = content_type.to_s.include?('json') ? parse_json(body) : Rack::Utils.parse_query(body)
      parsed.is_a?(Hash) ? parsed : {}
    end

    def parse_json(text)
      JSON.parse(text)
    rescue JSON::ParserError
      text
    end

    def now_ms
      (Process.clock_gettime(Process::CLOCK_REALTIME, :float_millisecond)).round(1)
    end
  end
end
