package org.slurmautoresume.nodeops.admin;

import java.util.Optional;
import org.slurmautoresume.slurm.model.Caller;
import org.slurmautoresume.slurm.model.SlurmConfig;

/**
 * Whether the caller may change nodes. Slurm lets root, the SlurmUser and accounts with
 * AdminLevel Operator/Admin (only where accounting runs through slurmdbd) update nodes; every
 * other caller gets "Invalid user id" or "Access/permission denied" from scontrol (see
 * {@link org.slurmautoresume.slurm.client.WriteResult#deniedBySlurm}).
 */
public final class Privilege {

    /** {@code allowed}: go ahead; {@code message}: why not, or a warning to show; empty if neither. */
    public record Check(boolean allowed, String message) {}

    private Privilege() {}

    public static Check check(Caller caller, SlurmConfig config) {
        if (caller.isRoot()) {
            return new Check(true, "");
        }
        String slurmUserField = config.get("SlurmUser").orElse("root(0)");
        String slurmUser = nameOf(slurmUserField);
        Optional<Long> slurmUid = uidOf(slurmUserField);
        if (caller.name().equals(slurmUser)
                || slurmUid.map(uid -> uid == caller.uid()).orElse(false)) {
            return new Check(true, "");
        }
        String needed = "changing a node's state needs root or the SlurmUser (" + slurmUser + "); you are " + caller;
        boolean accounting = config.get("AccountingStorageType")
                .map(t -> t.contains("slurmdbd"))
                .orElse(false);
        if (accounting) {
            return new Check(
                    true,
                    needed + ": going ahead in case your account has AdminLevel=Operator or Admin"
                            + " (sacctmgr show user " + caller.name() + " format=adminlevel)");
        }
        return new Check(
                false,
                needed + ". Run it with sudo, or as " + slurmUser
                        + " (this cluster has no accounting database, so no other account can be a Slurm admin)");
    }

    /** {@code slurm(64030)} gives {@code slurm}. */
    static String nameOf(String field) {
        int paren = field.indexOf('(');
        return (paren < 0 ? field : field.substring(0, paren)).strip();
    }

    static Optional<Long> uidOf(String field) {
        int open = field.indexOf('(');
        int close = field.indexOf(')', open + 1);
        if (open < 0 || close < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(field.substring(open + 1, close).strip()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
