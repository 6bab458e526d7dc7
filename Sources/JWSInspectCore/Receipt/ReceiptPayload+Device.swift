internal import COpenSSL
package import FoundationEssentials

extension ReceiptPayload {
    /// The device hash a receipt carries in `sha1_hash` (field 5) for the device with
    /// `identifierForVendor`: SHA-1 of its 16 bytes ‖ `opaque_value` (field 4) ‖ field 2's
    /// whole DER value (the UTF8String with its tag and length), computed with OpenSSL's EVP.
    ///
    /// - Returns: the 20 bytes, or nil when the receipt lacks field 4 or field 2.
    package func deviceHash(identifierForVendor: UUID) -> [UInt8]? {
        guard let opaque = opaqueValue, let bundle = bundleIDBytes else { return nil }
        let uuid = identifierForVendor.uuid
        let deviceBytes = withUnsafeBytes(of: uuid) { Array($0) }
        return ReceiptDigest.sha1(deviceBytes + opaque + bundle)
    }

    /// Whether field 5 equals `deviceHash(identifierForVendor:)`; false when either is missing.
    package func matchesDevice(identifierForVendor: UUID) -> Bool {
        guard let expected = sha1Hash, let computed = deviceHash(identifierForVendor: identifierForVendor) else {
            return false
        }
        return expected == computed
    }

    /// The in-app entries that grant access at `time`.
    ///
    /// A receipt cannot tell a consumable from a non-consumable: both are entries without
    /// `expires_date`. The choice made here: an entry grants access when it is not cancelled
    /// (no non-empty `cancellation_date`, Apple's mark of a refund or revocation) and either
    /// has no `expires_date` (taken as a non-consumable, owned for good; a consumable would be
    /// counted too, and receipts normally list consumables only until they are finished) or
    /// has one that parses and is after `time` (an unexpired subscription). A purchase date
    /// after `time` grants nothing yet. An `expires_date` that does not parse grants nothing.
    /// An `expires_date` or `cancellation_date` that is there but no one readable date (another
    /// ASN.1 type, text that is no date, the field twice) grants nothing. None grants anything
    /// when the receipt's own `expiration_date` (field 21) is at or before `time`, or unreadable.
    package func activeEntries(at time: Date) -> [InAppPurchase] {
        guard isInDate(at: time) else { return [] }
        return inApp.filter { $0.isActive(at: time) }
    }

    /// Whether any in-app entry grants access at `time` (see `activeEntries(at:)`).
    package func isActive(at time: Date) -> Bool { isInDate(at: time) && inApp.contains { $0.isActive(at: time) } }

    /// Whether the receipt itself has not expired at `time`: no `expiration_date`, or one after `time`.
    package func isInDate(at time: Date) -> Bool {
        switch expiration {
        case .absent: true
        case .date(let expires): expires > time
        case .unreadable: false
        }
    }
}

extension InAppPurchase {
    /// Whether this entry grants access at `time`: the one access rule (`Entitlement.standing`)
    /// on its purchase, as `ReceiptPayload.activeEntries(at:)` reads it.
    package func isActive(at time: Date) -> Bool {
        Entitlement.standing(purchase, at: time).grants == true
    }

    /// The entry's purchase: cancelled when it holds a `cancellation_date` (one that does not
    /// read counts), bought at `purchase_date`, a subscription until `expires_date`, and without
    /// one a non-consumable (a receipt keeps a consumable only until the app finishes it).
    package var purchase: Entitlement.Purchase {
        let revoked: Entitlement.Purchase.Fact =
            switch dateField(Field.cancellationDate) {
            case .absent: .absent
            case .date: .present
            case .unreadable(let problem): .unreadable(problem)
            }
        let expiry: Entitlement.Purchase.Expiry =
            switch dateField(Field.expiresDate) {
            case .absent: .none
            case .date(let date): .date(date)
            case .unreadable(let problem): .unreadable(problem)
            }
        var purchase = Entitlement.Purchase(
            revoked: revoked, upgraded: .absent, term: .nonConsumable, purchased: purchaseDate, expiry: expiry)
        // A cancellation grants until it takes effect, as a transaction's revocationDate does.
        if case .date(let cancelled) = dateField(Field.cancellationDate) { purchase.revokedAt = cancelled }
        return purchase
    }
}

/// SHA-1 through OpenSSL's EVP, for receipts' device hash only (not a signature algorithm).
enum ReceiptDigest {
    static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &out, &length, EVP_sha1(), nil) }
        // EVP_Digest with a built-in algorithm fails only when memory runs out.
        precondition(ok == 1 && length == 20, "EVP_Digest(SHA-1) failed: \(OpenSSLError.describe(or: "no detail"))")
        return Array(out.prefix(20))
    }
}
