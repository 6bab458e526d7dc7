import Foundation
import Testing

/// Advanced Commerce and 12-month commitment data shown member by member (issue 52): minted
/// tokens carrying Apple's own model fixtures (Tests/Vectors/apple/models) show every member
/// named, money as money, enumerations explained, in tables and in JSON `display`; a member or
/// value Apple's models do not name is flagged at whatever depth it is.
@Suite(.timeLimit(.minutes(10))) struct NestedDisplayTests {
    static func fixture(_ name: String) throws -> [String: Any] {
        let path = CLI.packageRoot.appendingPathComponent("Tests/Vectors/apple/models/\(name).json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
    }

    static func text(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A token of `kind` carrying the fixture's `advancedCommerceInfo` (`change` applied first)
    /// and `commitmentInfo`, inspected: its JSON result and its table.
    static func inspected(
        _ kind: String, advancedCommerce change: (inout [String: Any]) throws -> Void = { _ in },
        commitment changeCommitment: (inout [String: Any]) -> Void = { _ in }
    ) throws -> (json: [String: Any], table: String) {
        let model = try fixture(kind == "transaction" ? "signedTransaction" : "signedRenewalInfo")
        var advancedCommerce = try #require(model["advancedCommerceInfo"] as? [String: Any])
        var items = try #require(advancedCommerce["items"] as? [[String: Any]])
        items[0]["offer"] = try fixture("advancedCommerceOffer")
        advancedCommerce["items"] = items
        try change(&advancedCommerce)
        var commitment = try #require(model["commitmentInfo"] as? [String: Any])
        changeCommitment(&commitment)
        let token = try MintTokenCommandTests.mint([
            kind, "--set", "advancedCommerceInfo=" + text(advancedCommerce), "--set",
            "commitmentInfo=" + text(commitment), "--set", "currency=EUR",
        ])
        let (status, json) = try MintTokenCommandTests.inspect(token)
        #expect(status == 0, "\(json["reason"] ?? "")")
        let table = InProcess.run(["--root", MintTokenCommandTests.root, token]).stdout
        return (json, table)
    }

    @Test func everyMemberOfATransactionsAdvancedCommerceAndCommitmentIsShown() throws {
        let (json, table) = try Self.inspected("transaction")
        let display = try #require(json["display"] as? [String: Any])
        let advancedCommerce = try #require(display["advancedCommerceInfo"] as? [String: Any])
        #expect(advancedCommerce["requestReferenceId"] as? String == "ref-12345")
        #expect(
            advancedCommerce["descriptors"] as? [String: String] == [
                "description": "Premium Plan", "displayName": "Premium",
            ])
        #expect(advancedCommerce["period"] as? String == "P1M — every month")
        #expect(advancedCommerce["taxCode"] as? String == "TAX_CODE_1")
        // Money in the payload's currency, from the enclosing payload.
        #expect(advancedCommerce["taxExclusivePrice"] as? String == "8.49 EUR")
        #expect(advancedCommerce["estimatedTax"] as? String == "1.50 EUR")
        #expect(advancedCommerce["taxRate"] as? String == "15%")
        let item = try #require((advancedCommerce["items"] as? [[String: Any]])?.first)
        #expect(item["SKU"] as? String == "com.example.sku.premium")
        #expect(item["displayName"] as? String == "Premium Feature")
        #expect(item["description"] as? String == "Premium feature")
        #expect(item["price"] as? String == "9.99 EUR")
        #expect(item["revocationDate"] as? String == "2023-10-24T12:06:40.000Z")
        #expect(
            item["offer"] as? [String: String] == [
                "period": "P1W — 1 week", "periodCount": "3", "price": "5.00 EUR",
                "reason": "WIN_BACK — to win back a former subscriber",
            ])
        #expect(
            (item["refunds"] as? [[String: String]])?.first == [
                "refundAmount": "5.00 EUR", "refundDate": "2023-10-24T12:05:00.000Z",
                "refundReason": "FULFILLMENT_ISSUE — fulfillment issue",
                "refundType": "PRORATED — prorated for the time not used",
            ])
        #expect(
            display["commitmentInfo"] as? [String: String] == [
                "billingPeriodNumber": "3", "totalBillingPeriods": "12",
                "commitmentExpiresDate": "2023-10-24T12:20:00.000Z", "commitmentPrice": "119.88 EUR",
            ])
        #expect(json["unknownFields"] as? [String] == [])
        #expect(json["unknownValues"] as? [String] == [])
        // Tables: one row a member, at its path, in Apple's order.
        for row in [
            "advancedCommerceInfo.descriptors.displayName", "advancedCommerceInfo.items[0].offer.reason",
            "advancedCommerceInfo.items[0].refunds[0].refundType", "commitmentInfo.commitmentPrice",
        ] {
            #expect(table.contains("  \(row)  "), "\(row)")
        }
        #expect(table.contains("advancedCommerceInfo.items[0].refunds[0].refundAmount  5000  5.00 EUR"))
        let order = [
            "items[0].SKU", "items[0].price", "items[0].offer.reason", "items[0].refunds[0]",
            "advancedCommerceInfo.period ",
        ]
        let places = order.compactMap { table.range(of: $0)?.lowerBound }
        #expect(places.count == order.count && places == places.sorted(), "Apple's order")
    }

    @Test func everyMemberOfARenewalInfosAdvancedCommerceAndCommitmentIsShown() throws {
        let (json, _) = try Self.inspected("renewalInfo")
        let display = try #require(json["display"] as? [String: Any])
        let advancedCommerce = try #require(display["advancedCommerceInfo"] as? [String: Any])
        #expect(advancedCommerce["consistencyToken"] as? String == "token-abc-123")
        let item = try #require((advancedCommerce["items"] as? [[String: Any]])?.first)
        #expect(
            item["priceIncreaseInfo"] as? [String: String] == [
                "status": "PENDING — waiting for the customer to accept", "price": "12.99 EUR",
                "dependentSKUs": "[com.example.sku.1, com.example.sku.2]",
            ])
        #expect(item["offer"] as? [String: String] != nil)
        #expect(
            display["commitmentInfo"] as? [String: String] == [
                "commitmentAutoRenewProductId": "com.example.product.commitment",
                "commitmentAutoRenewStatus": "1 — on: will renew",
                "commitmentRenewalBillingPlanType": "MONTHLY — billed monthly",
                "commitmentRenewalDate": "2023-10-24T12:11:40.000Z", "commitmentRenewalPrice": "9.99 EUR",
            ])
        #expect(json["unknownFields"] as? [String] == [])
        #expect(json["unknownValues"] as? [String] == [])
    }

    /// A member Apple's models do not name, added at every depth, is flagged at its path; the
    /// others stay shown.
    @Test(arguments: ["transaction", "renewalInfo"])
    func anAddedMemberIsFlaggedAtEveryDepth(_ kind: String) throws {
        let (json, table) = try Self.inspected(
            kind,
            advancedCommerce: { info in
                info["newTop"] = 1
                var descriptors = try #require(info["descriptors"] as? [String: Any])
                descriptors["newDescriptor"] = "x"
                info["descriptors"] = descriptors
                var items = try #require(info["items"] as? [[String: Any]])
                items[0]["newItem"] = true
                var offer = try #require(items[0]["offer"] as? [String: Any])
                offer["newOffer"] = 2
                items[0]["offer"] = offer
                if kind == "transaction" {
                    var refunds = try #require(items[0]["refunds"] as? [[String: Any]])
                    refunds[0]["newRefund"] = 3
                    items[0]["refunds"] = refunds
                } else {
                    var increase = try #require(items[0]["priceIncreaseInfo"] as? [String: Any])
                    increase["newIncrease"] = 4
                    items[0]["priceIncreaseInfo"] = increase
                }
                info["items"] = items
            },
            commitment: { $0["newCommitment"] = 5 })
        let deepest =
            kind == "transaction"
            ? "advancedCommerceInfo.items[0].refunds[0].newRefund"
            : "advancedCommerceInfo.items[0].priceIncreaseInfo.newIncrease"
        let expected: Set = [
            "advancedCommerceInfo.newTop", "advancedCommerceInfo.descriptors.newDescriptor",
            "advancedCommerceInfo.items[0].newItem", "advancedCommerceInfo.items[0].offer.newOffer", deepest,
            "commitmentInfo.newCommitment",
        ]
        #expect(Set(try #require(json["unknownFields"] as? [String])) == expected)
        #expect(table.contains("\(deepest)  "))
        #expect(table.contains("[field unknown to this version]"))
    }

    /// A value an enumeration of Apple's models does not list is flagged at its path.
    @Test func anUnknownValueIsFlaggedAtEveryDepth() throws {
        let (json, _) = try Self.inspected(
            "transaction",
            advancedCommerce: { info in
                info["period"] = "P5M"
                var items = try #require(info["items"] as? [[String: Any]])
                var offer = try #require(items[0]["offer"] as? [String: Any])
                offer["reason"] = "LOYALTY"
                offer["period"] = "P4D"
                items[0]["offer"] = offer
                var refunds = try #require(items[0]["refunds"] as? [[String: Any]])
                refunds[0]["refundReason"] = "CHANGED_MIND"
                refunds[0]["refundType"] = "PARTIAL"
                items[0]["refunds"] = refunds
                info["items"] = items
            })
        #expect(
            Set(try #require(json["unknownValues"] as? [String])) == [
                "advancedCommerceInfo.period", "advancedCommerceInfo.items[0].offer.reason",
                "advancedCommerceInfo.items[0].offer.period", "advancedCommerceInfo.items[0].refunds[0].refundReason",
                "advancedCommerceInfo.items[0].refunds[0].refundType",
            ])
        let (renewal, _) = try Self.inspected(
            "renewalInfo",
            advancedCommerce: { info in
                var items = try #require(info["items"] as? [[String: Any]])
                var increase = try #require(items[0]["priceIncreaseInfo"] as? [String: Any])
                increase["status"] = "DECLINED"
                items[0]["priceIncreaseInfo"] = increase
                info["items"] = items
            },
            commitment: {
                $0["commitmentAutoRenewStatus"] = 7
                $0["commitmentRenewalBillingPlanType"] = "WEEKLY"
            })
        #expect(
            Set(try #require(renewal["unknownValues"] as? [String])) == [
                "advancedCommerceInfo.items[0].priceIncreaseInfo.status", "commitmentInfo.commitmentAutoRenewStatus",
                "commitmentInfo.commitmentRenewalBillingPlanType",
            ])
    }
}
