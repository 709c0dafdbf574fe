# frozen_string_literal: true

# A real Doorkeeper for the end-to-end tests: Doorkeeper 5.5 on Rails 6.1 from Debian's packages
# (no Bundler, no gem downloads: `require` finds the system gems), SQLite in a temporary file,
# puma on the loopback interface. See README.md beside this file.
#
#   ruby demo/doorkeeper/server.rb [--port 8788] [--host 127.0.0.1] [--access-token-lifetime 7200]
#                                  [--exit-with-stdin]
#
# Once it listens it prints one line: `doorkeeper-bench listening on http://HOST:PORT (...)`.
require 'optparse'
require 'tmpdir'
require 'fileutils'

options = {
  port: Integer(ENV.fetch('PORT', '8788')),
  host: ENV.fetch('HOST', '127.0.0.1'),
  lifetime: Integer(ENV.fetch('ACCESS_TOKEN_LIFETIME', '7200')),
  exit_with_stdin: false,
}
OptionParser.new do |parser|
  parser.banner = 'Usage: ruby demo/doorkeeper/server.rb [options]'
  parser.on('--port PORT', Integer, 'TCP port, 0 for a free one (PORT, default 8788)') { |value| options[:port] = value }
  parser.on('--host HOST', 'Address to listen on (HOST, default 127.0.0.1)') { |value| options[:host] = value }
  parser.on('--access-token-lifetime SECONDS', Integer, 'Access token lifetime (ACCESS_TOKEN_LIFETIME, default 7200)') do |value|
    options[:lifetime] = value
  end
  parser.on('--exit-with-stdin', 'Stop when standard input closes (a test fixture that dies takes the server along)') do
    options[:exit_with_stdin] = true
  end
end.parse!

# A fresh database per process, removed on exit.
database_dir = Dir.mktmpdir('doorkeeper-bench-')
at_exit { FileUtils.remove_entry(database_dir, true) }
ENV['DATABASE_URL'] = "sqlite3:#{File.join(database_dir, 'bench.sqlite3')}?pool=5&timeout=5000"
ENV['RAILS_ENV'] = 'production'
ENV['ACCESS_TOKEN_LIFETIME'] = options[:lifetime].to_s

require_relative 'application'
require_relative 'request_log'
require_relative 'control'
require_relative 'site'
require 'rack/mock'
require 'puma'
require 'puma/events'
require 'puma/server'

DoorkeeperBench::Schema.load!
DoorkeeperBench::Schema.seed!

repository = File.expand_path('../..', __dir__)
site = DoorkeeperBench::Site.new(
  DoorkeeperBench::Application,
  [
    ['/site', File.join(repository, 'e2e/site')],
    # Browser builds of third-party packages the test pages load as a shop would (the Spree SDK).
    ['/vendor', File.join(repository, 'node_modules')],
    ['', File.join(repository, 'dist')],
  ],
)

# The first request of each kind loads code (Doorkeeper's controllers, the routes): take that cost
# now, before announcing readiness, then forget what it made.
warm = Rack::MockRequest.new(site)
granted = JSON.parse(warm.post('/spree_oauth/token', params: { grant_type: 'password', username: 'demo@example.com', password: 'spree123' }).body)
bearer = { 'HTTP_AUTHORIZATION' => "Bearer #{granted.fetch('access_token')}" }
warm.get('/api/v2/storefront/account', bearer)
warm.post('/api/v2/storefront/cart', bearer)
warm.post('/spree_oauth/revoke', params: { token: granted.fetch('access_token') })
Spree::OauthAccessToken.delete_all
Spree::Order.delete_all
site.log.clear

server = Puma::Server.new(site, Puma::Events.strings, min_threads: 1, max_threads: 4)
server.add_tcp_listener(options[:host], options[:port])
port = server.connected_ports.first
thread = server.run

versions = "Doorkeeper #{Doorkeeper::VERSION::STRING}, Rails #{Rails.version}, Ruby #{RUBY_VERSION}, " \
           "Puma #{Puma::Const::PUMA_VERSION}, access tokens #{options[:lifetime]} s"
$stdout.puts "doorkeeper-bench listening on http://#{options[:host]}:#{port} (#{versions})"
$stdout.flush

%w[TERM INT].each { |signal| Signal.trap(signal) { server.stop } }
if options[:exit_with_stdin]
  Thread.new do
    $stdin.read
    server.stop
  end
end
thread.join
