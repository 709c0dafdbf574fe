# frozen_string_literal: true

# The storefront endpoints the library touches, written after Spree 4.x's storefront API v2
# controllers: the same authentication path (Doorkeeper's `doorkeeper_token` and
# `doorkeeper_authorize!`, so a first use of a refreshed access token revokes the pair it replaced,
# as in Spree), the same statuses and `{ "error": ... }` bodies (STOREFRONT-FACTS.md).
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

      module Storefront
        # GET and PATCH /api/v2/storefront/account: a bearer is required (403 without one).
        class AccountController < BaseController
          before_action :require_spree_current_user

          def show
            render_serialized_payload { user_document(spree_current_user) }
          end

          def update
            changes = params.require(:user).permit(:email, :first_name, :last_name)
            user = spree_current_user
            if user.update(changes)
              render_serialized_payload { user_document(user) }
            else
              render_error_payload(user.errors.full_messages.to_sentence, 422, user.errors.messages)
            end
          end

          private

          def user_document(user)
            {
              data: {
                id: user.id.to_s,
                type: 'user',
                attributes: {
                  email: user.email,
                  first_name: user.first_name,
                  last_name: user.last_name,
                  store_credits: 0.0,
                  completed_orders: 0,
                },
                relationships: {
                  default_billing_address: { data: nil },
                  default_shipping_address: { data: nil },
                },
              },
            }
          end
        end

        # The cart: found by the bearer's user, else by the order token (X-Spree-Order-Token);
        # none is a 404. Creating one needs nothing; with a bearer it is the user's.
        class CartController < BaseController
          before_action :require_spree_current_user, only: :associate

          def create
            user = spree_current_user
            order = Spree::Order.create!(user: user, email: user&.email)
            render_serialized_payload(201) { cart_document(order) }
          end

          def show
            order = spree_current_order or raise ActiveRecord::RecordNotFound
            render_serialized_payload { cart_document(order) }
          end

          # PATCH cart/associate?guest_order_token=T: assigns a guest's cart to the signed-in user.
          def associate
            order = Spree::Order.incomplete.find_by!(token: params[:guest_order_token].to_s)
            return render_error_payload('Cart is already associated to a user') if order.user_id

            order.update!(user: spree_current_user, email: order.email || spree_current_user.email)
            render_serialized_payload { cart_document(order) }
          end

          private

          def order_token
            request.headers['X-Spree-Order-Token'] || params[:order_token]
          end

          def spree_current_order
            user = spree_current_user
            return user.orders.incomplete.order(updated_at: :desc, id: :desc).first if user

            Spree::Order.incomplete.find_by(token: order_token) if order_token.present?
          end

          def cart_document(order)
            attributes = {
              number: order.number,
              item_total: '0.0',
              total: '0.0',
              ship_total: '0.0',
              currency: order.currency,
              state: order.state,
              token: order.token,
              email: order.email,
              display_total: '$0.00',
              item_count: 0,
              created_at: order.created_at,
              updated_at: order.updated_at,
            }
            relationships = {
              line_items: { data: [] },
              user: { data: order.user_id ? { id: order.user_id.to_s, type: 'user' } : nil },
            }
            { data: { id: order.id.to_s, type: 'cart', attributes: sparse(:cart, attributes), relationships: sparse(:cart, relationships) } }
          end
        end
      end
    end
  end
end
