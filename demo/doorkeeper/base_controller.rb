# frozen_string_literal: true

# Spree 4.x's storefront API v2 base controller: the authentication path every storefront endpoint
# takes (Doorkeeper's `doorkeeper_token` and `doorkeeper_authorize!`, so a first use of a refreshed
# access token revokes the pair it replaced, as in Spree), and Spree's statuses and `{ "error": ... }`
# bodies (docs/servers.md, "Spree's storefront endpoints").
module Spree
  # CanCan's AccessDenied in Spree, with CanCan's default message.
  class AccessDenied < StandardError
    def initialize(message = 'You are not authorized to access this page.')
      super
    end
  end

  module Api
    module V2
      # Spree::Api::V2::BaseController: also the base of Doorkeeper's own controllers (see the
      # Doorkeeper configuration), as in Spree.
      class BaseController < ActionController::API
        CONTENT_TYPE = 'application/vnd.api+json'
        NOT_FOUND = 'The resource you were looking for could not be found.'

        rescue_from ActiveRecord::RecordNotFound, with: :record_not_found
        rescue_from Spree::AccessDenied, with: :access_denied
        rescue_from Doorkeeper::Errors::DoorkeeperError, with: :access_denied_401
        rescue_from ActionController::ParameterMissing, with: :error_during_processing

        private

        # Spree's: a bearer Doorkeeper does not know is a guest; an expired or revoked one raises
        # (`handle_auth_errors :raise`), which becomes a 401 below.
        def spree_current_user
          return nil unless doorkeeper_token
          return @spree_current_user if defined?(@spree_current_user)

          doorkeeper_authorize!
          @spree_current_user = doorkeeper_token.resource_owner
        end

        def require_spree_current_user
          raise Spree::AccessDenied if spree_current_user.nil?
        end

        def render_serialized_payload(status = 200, &block)
          render json: block.call, status: status, content_type: CONTENT_TYPE
        end

        def render_error_payload(error, status = 422, errors = nil)
          render json: errors ? { error: error, errors: errors } : { error: error }, status: status, content_type: CONTENT_TYPE
        end

        def record_not_found(_exception = nil)
          render_error_payload(NOT_FOUND, 404)
        end

        def access_denied(exception)
          render_error_payload(exception.message, 403)
        end

        def access_denied_401(exception)
          render_error_payload(exception.message, 401)
        end

        def error_during_processing(exception)
          message = exception.respond_to?(:original_message) ? exception.original_message : exception.message
          render_error_payload(message, 400)
        end

        # JSON:API sparse fieldsets: `fields[cart]=number,token` keeps those attributes and
        # relationships only.
        def sparse(type, members)
          fields = params[:fields]
          wanted = fields.respond_to?(:to_unsafe_h) ? fields.to_unsafe_h[type.to_s] : nil
          return members unless wanted.is_a?(String)

          names = wanted.split(',').map(&:strip)
          members.select { |name, _| names.include?(name.to_s) }
        end
      end
    end
  end
end
