# frozen_string_literal: true

module Spree
  module Api
    module V2
      module Storefront
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
