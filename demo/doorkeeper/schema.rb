# frozen_string_literal: true

# The tables: Spree 4.x's `spree_oauth_*` (Doorkeeper's migration with Spree's table names, the
# polymorphic resource owner and the `previous_refresh_token` column, whose presence alone turns on
# Doorkeeper's rotation: the old pair is revoked when the new access token is first used), and the
# few columns of `spree_users` and `spree_orders` that the storefront endpoints read.
module DoorkeeperBench
  module Schema
    # Devise's test setting: a low bcrypt cost, so that a login costs milliseconds, not 250 ms.
    BCRYPT_COST = BCrypt::Engine::MIN_COST

    USERS = [
      { email: 'demo@example.com', password: 'spree123', first_name: 'Demo', last_name: 'Shopper' },
      { email: 'shopper2@example.com', password: 'secret456', first_name: 'Second', last_name: 'Shopper' },
    ].freeze

    module_function

    def load!
      ActiveRecord::Migration.verbose = false
      ActiveRecord::Schema.define(version: 1) do
        create_table :spree_oauth_applications do |t|
          t.string :name, null: false
          t.string :uid, null: false, index: { unique: true }
          t.string :secret, null: false
          t.text :redirect_uri
          t.string :scopes, null: false, default: ''
          t.boolean :confidential, null: false, default: true
          t.timestamps null: false
        end

        create_table :spree_oauth_access_grants do |t|
          t.references :resource_owner, null: false, polymorphic: true, index: false
          t.references :application, null: false
          t.string :token, null: false, index: { unique: true }
          t.integer :expires_in, null: false
          t.text :redirect_uri, null: false
          t.datetime :created_at, null: false
          t.datetime :revoked_at
          t.string :scopes, null: false, default: ''
        end

        create_table :spree_oauth_access_tokens do |t|
          t.references :resource_owner, polymorphic: true, index: false
          t.references :application
          t.string :token, null: false, index: { unique: true }
          t.string :refresh_token, index: { unique: true }
          t.integer :expires_in
          t.datetime :revoked_at
          t.datetime :created_at, null: false
          t.string :scopes
          t.string :previous_refresh_token, null: false, default: ''
        end

        create_table :spree_users do |t|
          t.string :email, null: false, index: { unique: true }
          t.string :encrypted_password, null: false
          t.string :first_name
          t.string :last_name
          t.timestamps null: false
        end

        create_table :spree_orders do |t|
          t.string :number, null: false, index: { unique: true }
          t.string :token, null: false, index: { unique: true }
          t.references :user
          t.string :email
          t.string :state, null: false, default: 'cart'
          t.string :currency, null: false, default: 'USD'
          t.timestamps null: false
        end
      end
    end

    def seed!
      USERS.each do |user|
        Spree::User.create!(
          email: user[:email],
          encrypted_password: BCrypt::Password.create(user[:password], cost: BCRYPT_COST),
          first_name: user[:first_name],
          last_name: user[:last_name],
        )
      end
    end
  end
end
