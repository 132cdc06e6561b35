// offsetctl sandbox compatibility shim, compiled by `offsetctl sandbox up` only for Kafka releases
// whose FileStream / MirrorMaker 2 / basic-auth plugin jars Maven Central lacks (4.4.0): the
// plugins then come from the previous release, whose version() calls this class, which Kafka 4.4
// moved to org.apache.kafka.common.utils.internals. It forwards there; nothing else.
package org.apache.kafka.common.utils;

public final class AppInfoParser {
    private AppInfoParser() {}

    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }

    public static String getCommitId() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
    }
}
