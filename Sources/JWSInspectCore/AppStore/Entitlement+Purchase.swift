package import FoundationEssentials

extension Entitlement {
    /// What one purchase says about access, read from an envelope: a transaction's members
    /// (`init(transaction:)`) or a legacy receipt's in-app entry (`InAppPurchase.purchase`).
    /// `standing(at:)` is the one rule that decides what it grants; each envelope words the
    /// standing in its own field names, and decides which of its purchases speaks (a
    /// notification's first nested transaction, a receipt's subscription expiring last).
    package struct Purchase: Sendable, Equatable {
        /// A fact that is there, absent, or there but unreadable (what is there, as messages quote it).
        package enum Fact: Sendable, Equatable {
            case absent
            case present
            case unreadable(String)
        }

        /// An expiry: none, a date, or one that is there and no date (what is there, quoted).
        package enum Expiry: Sendable, Equatable {
            case none
            case date(Date)
            case unreadable(String)
        }

        /// What a purchase without an expiry is.
        package enum Term: Sendable, Equatable {
            /// An auto-renewable subscription: without an expiry it has no term to grant.
            case autoRenewable
            /// A non-consumable (a receipt's entry without `expires_date`): owned until revoked.
            case nonConsumable
            /// A non-renewing subscription: its term is the app's to decide.
            case nonRenewing
            /// A consumable: never an entitlement.
            case consumable
            /// A type jwsinspect does not know (nil: no type at all).
            case unknown(String?)
        }

        /// Revoked (refunded, revoked by Apple) or cancelled: `revocationDate`, `cancellation_date`.
        package let revoked: Fact
        /// Upgraded to another product of its group (`isUpgraded`).
        package let upgraded: Fact
        package let term: Term
        /// When it was bought, when the envelope's rule reads it (a receipt entry's
        /// `purchase_date`); nil: not read.
        package let purchased: Date?
        package let expiry: Expiry
        /// When a revocation that is there took effect, when the envelope's rule reads it (a
        /// transaction's `revocationDate`): before it, the purchase stands as if unrevoked,
        /// granting at most until then. Nil: revoked whenever it is asked about.
        package var revokedAt: Date? = nil
    }

    /// Where a purchase stands at a moment: granted or not, and why, for the envelope to word.
    package enum Standing: Sendable, Equatable {
        case revoked
        /// There is a revocation, or an upgrade, that does not read: taken as one.
        case revocationUnreadable(String)
        case upgraded
        case upgradeUnreadable(String)
        case consumable
        case notYetPurchased(Date)
        case expiryUnreadable(String)
        case expired(Date)
        case active(until: Date)
        /// A non-consumable, not revoked: owned without an expiry.
        case owned
        /// An auto-renewable subscription without an expiry: no term to grant.
        case noTerm
        /// A non-renewing subscription without an expiry: the app's to decide.
        case termIsTheApps
        /// A type jwsinspect does not know (nil: no type), without an expiry.
        case unknownType(String?)

        /// True when it grants access, false when it grants none, nil when it cannot say.
        package var grants: Bool? {
            switch self {
            case .active, .owned: true
            case .termIsTheApps, .unknownType: nil
            default: false
            }
        }
    }

    /// The one access rule, for every envelope. Fails closed: a revocation or upgrade that is
    /// there grants nothing, readable or not; so does an expiry that is there and no date, a
    /// purchase after the moment asked about, and an auto-renewable subscription without an
    /// expiry. Only a non-consumable grants access without an expiry; a non-renewing
    /// subscription's term, and an unknown type's, are the app's to decide.
    package static func standing(_ purchase: Purchase, at date: Date) -> Standing {
        switch purchase.revoked {
        case .present:
            guard let revokedAt = purchase.revokedAt, revokedAt > date else { return .revoked }
            // Revoked later: it stands as unrevoked, and grants at most until the revocation.
            switch standing(purchase.unrevoked, at: date) {
            case .active(let until): return .active(until: min(until, revokedAt))
            case .owned: return .active(until: revokedAt)
            case let other: return other
            }
        case .unreadable(let shown): return .revocationUnreadable(shown)
        case .absent: break
        }
        switch purchase.upgraded {
        case .present: return .upgraded
        case .unreadable(let shown): return .upgradeUnreadable(shown)
        case .absent: break
        }
        if purchase.term == .consumable { return .consumable }
        if let purchased = purchase.purchased, purchased > date { return .notYetPurchased(purchased) }
        switch purchase.expiry {
        case .unreadable(let shown): return .expiryUnreadable(shown)
        case .date(let expiry): return expiry > date ? .active(until: expiry) : .expired(expiry)
        case .none: break
        }
        switch purchase.term {
        case .autoRenewable: return .noTerm
        case .nonConsumable: return .owned
        case .nonRenewing: return .termIsTheApps
        case .consumable: return .consumable
        case .unknown(let type): return .unknownType(type)
        }
    }
}

extension Entitlement.Purchase {
    /// The same purchase, not revoked.
    var unrevoked: Entitlement.Purchase {
        Entitlement.Purchase(revoked: .absent, upgraded: upgraded, term: term, purchased: purchased, expiry: expiry)
    }

    /// A transaction's purchase, from its members (`Entitlement.accessKeys`). A member that is
    /// JSON `null` is absent; one that is there and not of its type is unreadable.
    init(transaction payload: [String: JSONValue]) {
        if let value = payload["revocationDate"], value != .null {
            revoked = value.numberValue == nil ? .unreadable(Entitlement.shown(value)) : .present
        } else {
            revoked = .absent
        }
        switch payload["isUpgraded"] {
        case nil, .null?, .bool(false)?: upgraded = .absent
        case .bool(true)?: upgraded = .present
        case let other?: upgraded = .unreadable(Entitlement.shown(other))
        }
        let type = payload["type"]?.stringValue
        term =
            switch Exact.ascii(type) {
            case "Consumable": .consumable
            case "Auto-Renewable Subscription": .autoRenewable
            case "Non-Consumable": .nonConsumable
            case "Non-Renewing Subscription": .nonRenewing
            default: .unknown(type)
            }
        // Nothing is granted before it was bought; a purchaseDate that does not read is not used.
        purchased = Timestamp.date(payload["purchaseDate"])
        revokedAt = Timestamp.date(payload["revocationDate"])
        if let value = payload["expiresDate"], value != .null {
            expiry = Timestamp.date(value).map { .date($0) } ?? .unreadable(Entitlement.shown(value))
        } else {
            expiry = .none
        }
    }
}
