# frozen_string_literal: true

# The models, as Spree 4.x declares them: its own classes around Doorkeeper's ActiveRecord mixins
# (so that Doorkeeper's rotation, expiry and revocation code is the code under test), a user with a
# bcrypt password, and an order that stands for a cart.
module Spree
  # Spree's OAuth models include Doorkeeper's mixins and name their `spree_oauth_*` tables.
  class OauthApplication < ActiveRecord::Base
    include ::Doorkeeper::Orm::ActiveRecord::Mixins::Application
    self.table_name = 'spree_oauth_applications'
  end

  # The access token record, which also holds its refresh token (one record per pair).
  class OauthAccessToken < ActiveRecord::Base
    include ::Doorkeeper::Orm::ActiveRecord::Mixins::AccessToken
    self.table_name = 'spree_oauth_access_tokens'
  end

  # Authorization codes: unused by the password grant, but Doorkeeper's models expect the table.
  class OauthAccessGrant < ActiveRecord::Base
    include ::Doorkeeper::Orm::ActiveRecord::Mixins::AccessGrant
    self.table_name = 'spree_oauth_access_grants'
  end

  # A shopper; Devise's `find_for_database_authentication` looks e-mails up case-insensitively.
  class User < ActiveRecord::Base
    self.table_name = 'spree_users'
    has_many :orders, class_name: 'Spree::Order'
    validates :email, presence: true, uniqueness: { case_sensitive: false }, format: { with: /\A[^@\s]+@[^@\s]+\z/ }

    def self.authenticate(username, password)
      user = find_by(email: username.to_s.strip.downcase)
      user if user && BCrypt::Password.new(user.encrypted_password) == password.to_s
    end
  end

  # A cart: an order in the `cart` state, found by its guest token or by its user.
  class Order < ActiveRecord::Base
    self.table_name = 'spree_orders'
    belongs_to :user, class_name: 'Spree::User', optional: true

    before_validation on: :create do
      self.number ||= "R#{SecureRandom.random_number(10**9).to_s.rjust(9, '0')}"
      self.token ||= SecureRandom.urlsafe_base64(16)
    end

    scope :incomplete, -> { where(state: 'cart') }
  end
end
