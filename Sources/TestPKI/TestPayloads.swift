/// App Store-shaped payload JSON for tests and benchmarks, signed at fixed times
/// inside the test leaf's validity (2024-01-01 to 2026-01-01).
package enum TestPayloads {
    /// 2025-01-01T00:00:00Z in milliseconds.
    package static let signedDate: Int64 = 1_735_689_600_000
    package static let bundleId = "com.example.jwsinspect"
    package static let appAppleId: Int64 = 1_234_567_890

    package static func transaction(
        bundleId: String = bundleId, environment: String = "Sandbox",
        signedDate: Int64 = signedDate, transactionId: String = "2000000000000001"
    ) -> String {
        """
        {"transactionId":"\(transactionId)","originalTransactionId":"2000000000000001","bundleId":"\(bundleId)",\
        "productId":"com.example.pro.monthly","purchaseDate":1735603200000,"originalPurchaseDate":1735603200000,\
        "expiresDate":1738281600000,"quantity":1,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED",\
        "signedDate":\(signedDate),"environment":"\(environment)","transactionReason":"PURCHASE","storefront":"USA",\
        "storefrontId":"143441","price":9990,"currency":"USD"}
        """
    }

    package static func renewalInfo(environment: String = "Sandbox", signedDate: Int64 = signedDate) -> String {
        """
        {"originalTransactionId":"2000000000000001","autoRenewProductId":"com.example.pro.monthly",\
        "productId":"com.example.pro.monthly","autoRenewStatus":1,"signedDate":\(signedDate),\
        "environment":"\(environment)","renewalDate":1738281600000}
        """
    }

    package static func notification(
        bundleId: String = bundleId, appAppleId: Int64? = appAppleId,
        environment: String = "Sandbox", signedDate: Int64 = signedDate
    ) -> String {
        let appleId = appAppleId.map { "\"appAppleId\":\($0)," } ?? ""
        return """
            {"notificationType":"TEST","notificationUUID":"00000000-0000-4000-8000-000000000001",\
            "data":{\(appleId)"bundleId":"\(bundleId)","environment":"\(environment)"},\
            "version":"2.0","signedDate":\(signedDate)}
            """
    }

    package static func appTransaction(
        bundleId: String = bundleId, appAppleId: Int64 = appAppleId,
        receiptType: String = "Sandbox", receiptCreationDate: Int64 = signedDate
    ) -> String {
        """
        {"receiptType":"\(receiptType)","appAppleId":\(appAppleId),"bundleId":"\(bundleId)","applicationVersion":"1",\
        "receiptCreationDate":\(receiptCreationDate),"originalPurchaseDate":1704067200000,\
        "originalApplicationVersion":"1","appTransactionId":"700000000000001","originalPlatform":"iOS"}
        """
    }
}
