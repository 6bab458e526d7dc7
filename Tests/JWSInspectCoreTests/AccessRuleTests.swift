import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// One access rule for every envelope (issue 25): a transaction's members and a receipt's
/// in-app entry are read into the same `Entitlement.Purchase`, and `Entitlement.standing` alone
/// decides what it grants; each envelope only words the standing and chooses which purchase
/// speaks.
@Suite struct AccessRuleTests {
    static let now = Fixtures.now
    static let day = 86_400.0
    static func ms(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970 * 1000)) }

    /// One purchase, as a transaction and as a receipt entry.
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let expires: Date?
        let revoked: Date?
        let standing: Entitlement.Standing
    }

    static let cases = [
        Case(description: "active", expires: now + 30 * day, revoked: nil, standing: .active(until: now + 30 * day)),
        Case(description: "expired", expires: now - day, revoked: nil, standing: .expired(now - day)),
        Case(description: "revoked while active", expires: now + 30 * day, revoked: now - day, standing: .revoked),
        Case(description: "owned", expires: nil, revoked: nil, standing: .owned),
        Case(description: "owned, revoked", expires: nil, revoked: now - day, standing: .revoked),
    ]

    @Test(arguments: cases)
    func aTransactionAndAReceiptEntryStandAlike(_ purchase: Case) throws {
        var members = [
            #""transactionId":"1""#, #""productId":"p""#,
            #""type":"\#(purchase.expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription")""#,
        ]
        if let expires = purchase.expires { members.append(#""expiresDate":\#(Self.ms(expires))"#) }
        if let revoked = purchase.revoked { members.append(#""revocationDate":\#(Self.ms(revoked))"#) }
        let transaction = try #require(
            try JSONValue.decodeObject(Array(("{" + members.joined(separator: ",") + "}").utf8)))
        let fromTransaction = Entitlement.standing(Entitlement.Purchase(transaction: transaction), at: Self.now)

        var entry = InAppEntry(
            productID: "p", transactionID: "1", purchaseDate: Self.now - 60 * Self.day, expiresDate: purchase.expires)
        entry.cancellationDate = purchase.revoked
        var builder = ReceiptBuilder(receiptType: ReceiptBuilder.production, bundleID: "com.example.app")
        builder.inApp = [entry]
        let receipt = try ReceiptPayload(der: builder.der())
        let fromReceipt = Entitlement.standing(try #require(receipt.inApp.first).purchase, at: Self.now)

        #expect(fromTransaction == purchase.standing)
        #expect(fromReceipt == purchase.standing)
        // And the envelopes' access says the same.
        let grants = purchase.standing.grants
        #expect(Entitlement.access(kind: .transaction, payload: transaction, at: Self.now).grantsAccess == grants)
        #expect(receipt.access(at: Self.now).grantsAccess == grants)
    }

    static func purchase(
        revoked: Entitlement.Purchase.Fact = .absent, upgraded: Entitlement.Purchase.Fact = .absent,
        term: Entitlement.Purchase.Term = .autoRenewable, purchased: Date? = nil,
        expiry: Entitlement.Purchase.Expiry = .date(now + day)
    ) -> Entitlement.Purchase {
        .init(revoked: revoked, upgraded: upgraded, term: term, purchased: purchased, expiry: expiry)
    }

    /// Each rule in its place: every one of these would grant access without it.
    @Test func eachRuleFailsClosedBeforeAnExpiryGrants() {
        #expect(Entitlement.standing(Self.purchase(), at: Self.now) == .active(until: Self.now + Self.day))
        let refused: [(Entitlement.Purchase, Entitlement.Standing)] = [
            (Self.purchase(revoked: .present), .revoked),
            (Self.purchase(revoked: .unreadable("\"soon\"")), .revocationUnreadable("\"soon\"")),
            (Self.purchase(upgraded: .present), .upgraded),
            (Self.purchase(upgraded: .unreadable("1")), .upgradeUnreadable("1")),
            (Self.purchase(term: .consumable), .consumable),
            (Self.purchase(purchased: Self.now + 1), .notYetPurchased(Self.now + 1)),
            (Self.purchase(expiry: .unreadable("1e22")), .expiryUnreadable("1e22")),
            (Self.purchase(expiry: .date(Self.now)), .expired(Self.now)),
        ]
        for (purchase, standing) in refused {
            #expect(Entitlement.standing(purchase, at: Self.now) == standing)
            #expect(standing.grants == false, "\(standing)")
        }
    }

    /// Without an expiry only a non-consumable grants; the rest is refused or left to the app.
    @Test func withoutAnExpiryTheTermDecides() {
        let terms: [(Entitlement.Purchase.Term, Entitlement.Standing, Bool?)] = [
            (.nonConsumable, .owned, true), (.autoRenewable, .noTerm, false),
            (.nonRenewing, .termIsTheApps, nil), (.unknown("Gift"), .unknownType("Gift"), nil),
            (.unknown(nil), .unknownType(nil), nil), (.consumable, .consumable, false),
        ]
        for (term, standing, grants) in terms {
            let decided = Entitlement.standing(Self.purchase(term: term, expiry: .none), at: Self.now)
            #expect(decided == standing)
            #expect(decided.grants == grants, "\(term)")
        }
    }
}
