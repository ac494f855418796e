package org.slurmautoresume.slurm.probe;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.util.Optional;

/** Makes munge credentials carrying a payload, as Slurm's auth/munge plugin asks munged for them. */
@FunctionalInterface
public interface MungeEncoder {

    /** A fresh credential (munge's base64 text) carrying {@code payload}; IOException when munged refuses or is away. */
    String encode(byte[] payload) throws IOException;

    /**
     * libmunge's {@code munge_encode}, in this process: a credential costs one round trip to the
     * local munged over its socket and no process. {@code socket} is munged's socket where
     * Slurm's AuthInfo names one; empty for libmunge's default.
     */
    static MungeEncoder libmunge(Optional<String> socket) {
        return new LibMunge(socket);
    }

    /** The encoder behind {@link #libmunge}: libmunge is loaded on the first credential. */
    final class LibMunge implements MungeEncoder {

        /** MUNGE_OPT_SOCKET in munge.h. */
        private static final int OPT_SOCKET = 8;

        private interface Api extends Library {
            Pointer munge_ctx_create();

            int munge_ctx_set(Pointer ctx, int option, Object... value);

            void munge_ctx_destroy(Pointer ctx);

            int munge_encode(PointerByReference credential, Pointer ctx, byte[] payload, int length);

            String munge_strerror(int error);
        }

        private static volatile Api api;

        private final Optional<String> socket;

        private LibMunge(Optional<String> socket) {
            this.socket = socket;
        }

        private static Api api() throws IOException {
            Api loaded = api;
            if (loaded == null) {
                synchronized (LibMunge.class) {
                    if (api == null) {
                        try {
                            api = Native.load("munge", Api.class);
                        } catch (UnsatisfiedLinkError e) {
                            throw new IOException("libmunge could not be loaded: " + e.getMessage(), e);
                        }
                    }
                    loaded = api;
                }
            }
            return loaded;
        }

        @Override
        public String encode(byte[] payload) throws IOException {
            Api munge = api();
            // A context is not for sharing between threads (munge.h); one per credential costs a malloc.
            Pointer ctx = socket.isPresent() ? munge.munge_ctx_create() : null;
            if (socket.isPresent() && ctx == null) {
                throw new IOException("munge_ctx_create failed");
            }
            try {
                if (ctx != null) {
                    int set = munge.munge_ctx_set(ctx, OPT_SOCKET, socket.get());
                    if (set != 0) {
                        throw new IOException("munge socket " + socket.get() + ": " + munge.munge_strerror(set));
                    }
                }
                PointerByReference credential = new PointerByReference();
                int error = munge.munge_encode(credential, ctx, payload, payload.length);
                if (error != 0) {
                    throw new IOException("munge_encode: " + munge.munge_strerror(error));
                }
                Pointer text = credential.getValue();
                try {
                    return text.getString(0, "US-ASCII");
                } finally {
                    Native.free(Pointer.nativeValue(text));
                }
            } finally {
                if (ctx != null) {
                    munge.munge_ctx_destroy(ctx);
                }
            }
        }
    }
}
