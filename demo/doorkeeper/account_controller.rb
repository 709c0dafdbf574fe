# frozen_string_literal: true

module Spree
  module Api
    module V2
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
      end
    end
  end
end
