# frozen_string_literal: true

# A Rails 6.1 API application whose OAuth side is Doorkeeper configured as Spree 4.x configures it
# (Spree's api/config/initializers/doorkeeper.rb), with Spree's table names and routes. Required by
# server.rb once the environment (DATABASE_URL, RAILS_ENV, ACCESS_TOKEN_LIFETIME) is set.
require 'rails'
require 'active_record/railtie'
require 'action_controller/railtie'
require 'bcrypt'
require 'rack/cors'
require 'doorkeeper'

module DoorkeeperBench
  class << self
    # Seconds of the access tokens of new password grants (a refreshed token keeps the lifetime of
    # the one it replaces, as Doorkeeper 5.5 does): ACCESS_TOKEN_LIFETIME at start, then
    # POST /__control/access-token-lifetime, so one server serves tests of several lifetimes.
    attr_accessor :access_token_lifetime
  end
  self.access_token_lifetime = Integer(ENV.fetch('ACCESS_TOKEN_LIFETIME', '7200'))

  # The bench: API only, no files of its own besides these, the production environment's defaults.
  class Application < Rails::Application
    config.load_defaults 6.1
    config.root = __dir__
    config.api_only = true
    # Doorkeeper's controllers name Spree's base controller (below), which is defined after
    # initialization: they must load on first use, not eagerly.
    config.eager_load = false
    config.secret_key_base = 'doorkeeper-bench-' + ('0' * 48)
    config.logger = ActiveSupport::Logger.new($stderr).tap { |logger| logger.level = Logger::ERROR }
    config.log_level = :error
    config.active_support.deprecation = :silence
    config.hosts.clear

    # The test pages are served from this origin, but a page on another origin needs the API's CORS
    # to allow the credential headers (docs/cors.md).
    config.middleware.insert_before 0, Rack::Cors do
      allow do
        origins '*'
        resource '*',
                 headers: %w[Authorization Content-Type X-Spree-Order-Token],
                 methods: %i[get post put patch delete options head],
                 expose: %w[WWW-Authenticate ETag]
      end
    end
  end
end

# Spree's JSON:API content type, parsed as JSON like Spree does.
Mime::Type.register 'application/vnd.api+json', :jsonapi
ActionDispatch::Request.parameter_parsers = ActionDispatch::Request.parameter_parsers.merge(
  jsonapi: ActionDispatch::Request.parameter_parsers.fetch(:json),
)

Doorkeeper.configure do
  orm :active_record
  use_refresh_token
  api_only
  base_controller 'Spree::Api::V2::BaseController'
  base_metal_controller 'Spree::Api::V2::BaseController'

  skip_client_authentication_for_password_grant true
  use_polymorphic_resource_owner

  resource_owner_from_credentials do
    Spree::User.authenticate(params[:username], params[:password])
  end

  grant_flows %w[password client_credentials]
  allow_blank_redirect_uri true
  # Spree renders Doorkeeper's errors itself (401 `{"error": ...}`, no WWW-Authenticate).
  handle_auth_errors :raise
  access_token_methods :from_bearer_authorization, :from_access_token_param
  optional_scopes :admin, :write, :read

  # Seconds; the tests use a few, Doorkeeper's default is 7200 and Spree 4.9 configures a month.
  access_token_expires_in DoorkeeperBench.access_token_lifetime
  custom_access_token_expires_in { |_context| DoorkeeperBench.access_token_lifetime }

  access_token_class 'Spree::OauthAccessToken'
  access_grant_class 'Spree::OauthAccessGrant'
  application_class 'Spree::OauthApplication'
end

DoorkeeperBench::Application.initialize!

require_relative 'models'
require_relative 'schema'
require_relative 'base_controller'
require_relative 'account_controller'
require_relative 'cart_controller'

DoorkeeperBench::Application.routes.draw do
  use_doorkeeper scope: 'spree_oauth'

  scope 'api/v2/storefront', module: 'spree/api/v2/storefront' do
    resource :account, controller: :account, only: %i[show update]
    resource :cart, controller: :cart, only: %i[show create] do
      patch :associate
    end
  end
end
